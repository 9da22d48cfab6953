/**
 * A PGlite data directory that has been through initdb, copied into each embedded test server's
 * data directory. PGlite's initdb cost about 4 s of CPU per server (most of an embedded server's
 * start-up); a copy and a reopen cost a few hundred milliseconds. The server still creates its
 * schema and applies every migration itself; tests that pass their own BATON_DATA_DIR (and
 * tests/local-operator-token.test.ts) still start on an empty directory.
 */
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { asset } from '../../src/support/paths.js';

// The package does not export its package.json.
const pgliteVersion = (JSON.parse(readFileSync(asset('node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string }).version;
/** Shared by the test processes of a run (and later runs): keyed by PGlite's version. */
const TEMPLATE = path.join(os.tmpdir(), `baton-test-pglite-${pgliteVersion}`);

function exists(dir: string): boolean {
  try {
    return statSync(path.join(dir, 'PG_VERSION')).isFile();
  } catch {
    return false;
  }
}

let ready: Promise<void> | null = null;

async function ensureTemplate(): Promise<void> {
  if (exists(TEMPLATE)) return;
  // Built beside the template and renamed into place, so a concurrent test process never copies
  // a half-written one; if another process won the rename, its copy is as good as ours.
  const building = mkdtempSync(`${TEMPLATE}.building-`);
  try {
    const db = await PGlite.create({ dataDir: building });
    await db.close();
    renameSync(building, TEMPLATE);
  } catch (error) {
    if (!exists(TEMPLATE)) throw error;
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

/** Fills the empty directory `dataDir` with an initialised PGlite cluster. */
export async function seedPgliteDataDir(dataDir: string): Promise<void> {
  ready ??= ensureTemplate();
  await ready;
  cpSync(TEMPLATE, dataDir, { recursive: true });
}
