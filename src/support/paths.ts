/** Locates files shipped with the package (SQL migrations, Lua scripts) from src/ or dist/. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`package.json not found above ${start}`);
    dir = parent;
  }
}

export const packageRoot: string = findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));

/** Absolute path of an asset kept in the source tree, e.g. `asset('src/adapters/stores/sql/migrations')`. */
export function asset(...segments: string[]): string {
  return path.join(packageRoot, ...segments);
}
