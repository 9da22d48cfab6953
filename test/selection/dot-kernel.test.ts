import t from 'tap';
import { readFileSync } from 'node:fs';
import { asset } from '../../src/support/paths.js';
import { createDotKernel } from '../../src/logic/selection/dot-kernel.js';
import { WAT_FILE, assemble } from '../../scripts/build-wasm.js';

const fill = (kernel: ReturnType<typeof createDotKernel>, query: Float32Array): void => {
  for (let i = 0; i < kernel.matrix.length; i += 1) kernel.matrix[i] = Math.sin(i * 0.37);
  for (let k = 0; k < query.length; k += 1) query[k] = Math.cos(k * 0.11);
};

t.test('the WebAssembly kernel gives the same dot products as the JavaScript loop', async (t) => {
  const rows = 37;
  const d = 128;
  const query = new Float32Array(d);
  const simd = createDotKernel(rows, d);
  const js = createDotKernel(rows, d, { simd: false });
  fill(simd, query);
  fill(js, query);
  const a = new Float64Array(rows);
  const b = new Float64Array(rows);
  simd.dots(query, a);
  js.dots(query, b);
  for (let i = 0; i < rows; i += 1) t.ok(Math.abs((a[i] ?? 0) - (b[i] ?? 0)) < 1e-4, `row ${i}`);
});

t.test('a large matrix gets the memory it needs', async (t) => {
  const kernel = createDotKernel(5000, 128);
  kernel.matrix[kernel.matrix.length - 1] = 2;
  const query = new Float32Array(128);
  query[127] = 3;
  const out = new Float64Array(5000);
  kernel.dots(query, out);
  t.equal(out[4999], 6);
  t.equal(out[0], 0);
});

t.test('the committed dots.wasm is what dots.wat assembles to', async (t) => {
  const built = await assemble(readFileSync(WAT_FILE, 'utf8'));
  t.same(Buffer.from(built), readFileSync(asset('src', 'logic', 'selection', 'wasm', 'dots.wasm')));
});

t.test('dotsMany gives each query exactly what dots gives it, in one pass', async (t) => {
  const rows = 53;
  const d = 128;
  for (const simd of [true, false]) {
    const kernel = createDotKernel(rows, d, { simd });
    for (let i = 0; i < kernel.matrix.length; i += 1) kernel.matrix[i] = Math.sin(i * 0.37);
    const queries = [0.11, 0.23, 0.31, 0.47].map((f) => Float32Array.from({ length: d }, (_, k) => Math.cos(k * f)));
    const many = kernel.dotsMany(queries).map((out) => Array.from(out));
    queries.forEach((q, v) => {
      const one = new Float64Array(rows);
      kernel.dots(q, one);
      t.same(many[v], Array.from(one), `${simd ? 'SIMD' : 'JavaScript'} query ${v}`);
    });
    t.throws(() => kernel.dotsMany([...queries, queries[0] as Float32Array]), RangeError);
  }
});
