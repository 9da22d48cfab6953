/**
 * One process per embedded data directory: PGlite has no locking of its own, and two processes
 * writing the same files corrupt them (for instance `baton keys create` while `baton serve` runs).
 * A pid file taken with O_EXCL guards it; a lock left by a dead process is taken over.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export class DataDirInUse extends Error {
  constructor(dir: string, pid: number) {
    super(
      `the embedded data directory ${dir} is in use by process ${pid} (a running baton serve?); ` +
        'stop it first, or use the HTTP API while it runs',
    );
    this.name = 'DataDirInUse';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock; resolves to its release function. */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const file = path.join(dir, 'baton.pid');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeFile(file, String(process.pid), { flag: 'wx', mode: 0o600 });
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number((await readFile(file, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
      throw new DataDirInUse(dir, holder);
    }
    // Stale (its process is gone) or unreadable: remove and try again.
    await rm(file, { force: true });
  }
  throw new Error(`could not lock the embedded data directory ${dir}`);
}
