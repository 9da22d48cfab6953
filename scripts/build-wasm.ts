/**
 * Assembles src/logic/selection/wasm/dots.wat into dots.wasm (the selection dot-product kernel).
 *   npm run build:wasm
 * The .wasm is committed, so neither the service nor its tests need wabt at run time;
 * test/selection/dot-kernel.test.ts fails when the two files disagree.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import wabtInit from 'wabt';
import { packageRoot } from '../src/support/paths.js';

export const WAT_FILE = path.join(packageRoot, 'src', 'logic', 'selection', 'wasm', 'dots.wat');

/** The binary module assembled from `source` (WebAssembly text with SIMD). */
export async function assemble(source: string): Promise<Uint8Array> {
  const wabt = await wabtInit();
  const module = wabt.parseWat(path.basename(WAT_FILE), source, { simd: true });
  try {
    module.validate();
    return module.toBinary({}).buffer;
  } finally {
    module.destroy();
  }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const bytes = await assemble(readFileSync(WAT_FILE, 'utf8'));
  const out = WAT_FILE.replace(/\.wat$/, '.wasm');
  writeFileSync(out, bytes);
  console.log(`wrote ${path.relative(process.cwd(), out)} (${bytes.length} bytes)`);
}
