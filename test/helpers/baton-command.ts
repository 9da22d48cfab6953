/**
 * How a test runs the `baton` CLI in a child process: compiled JavaScript from dist/ when the
 * build is at least as new as the source, else the TypeScript source through tsx.
 *
 * `npm test` builds once before tap starts, so every spawned server and CLI call skips tsx, whose
 * load of the whole tree cost about a second per process on an idle machine and several on a
 * loaded one. A developer running one file (`npx tap test/x.test.ts`) after editing src/ gets
 * the source through tsx and one line on stderr saying why. BATON_TEST_RUN=tsx or =dist forces
 * either (dist fails if it is missing).
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../src/support/paths.js';

/** Written by `npm run build` after tsc succeeds; its mtime is the build's. */
export const BUILD_STAMP = path.join(packageRoot, 'dist', '.build-stamp');
/** Trees compiled into dist/ whose edits make a build stale. */
const SOURCE_TREES = ['src', 'types'];
const ENTRY_SOURCE = path.join(packageRoot, 'src/cli/main.ts');
const ENTRY_BUILT = path.join(packageRoot, 'dist/src/cli/main.js');

function newestMtimeMs(dir: string): number {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtimeMs(full));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

function stampMtimeMs(): number | null {
  try {
    return statSync(BUILD_STAMP).mtimeMs;
  } catch {
    return null;
  }
}

/** Why dist/ cannot be used, or null when it is current. */
export function staleBuildReason(): string | null {
  const stamp = stampMtimeMs();
  if (stamp === null) return 'dist/ has not been built (no dist/.build-stamp)';
  const newest = Math.max(...SOURCE_TREES.map((tree) => newestMtimeMs(path.join(packageRoot, tree))));
  if (newest > stamp) return 'src/ changed after the last build';
  return null;
}

let chosen: readonly string[] | null = null;

/** Node arguments that run the CLI (append its own arguments); decided once per test process. */
export function batonArgs(): readonly string[] {
  if (chosen !== null) return chosen;
  const forced = process.env.BATON_TEST_RUN;
  const reason = forced === 'tsx' ? 'BATON_TEST_RUN=tsx' : forced === 'dist' ? null : staleBuildReason();
  if (reason === null) {
    chosen = [ENTRY_BUILT];
  } else {
    process.stderr.write(`# spawned baton runs through tsx (slower): ${reason}; \`npm run build\` to use dist/\n`);
    chosen = ['--import', 'tsx', ENTRY_SOURCE];
  }
  return chosen;
}
