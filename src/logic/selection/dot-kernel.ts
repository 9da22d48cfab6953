/**
 * Dot products of one vector with every row of a matrix: the hot loop of selection (a request's
 * meaning vector against every agent's). WebAssembly SIMD (wasm/dots.wat) does it about nine
 * times faster than a JavaScript loop; the JavaScript loop stays as the fallback where
 * WebAssembly cannot be instantiated.
 */
import { readFileSync } from 'node:fs';
import { asset } from '../../support/paths.js';

export interface DotKernel {
  readonly rows: number;
  readonly dimensions: number;
  /** The matrix, row i at i × dimensions: fill it before computing. */
  readonly matrix: Float32Array;
  /** out[i] = dot(query, row i) for every row. */
  dots(query: Float32Array, out: Float64Array): void;
  /**
   * The dot products of each of `queries` with every row, in one pass over the matrix: result v
   * holds query v's, row i at index i. Each value equals what `dots` gives for that query. The
   * results are views into the kernel's memory, valid until its next call.
   */
  dotsMany(queries: readonly Float32Array[]): readonly ArrayLike<number>[];
}

/** Queries `dotsMany` takes in one pass: a request and up to three clauses (select.ts). */
export const MAX_QUERIES_PER_PASS = 4;

interface DotsExports {
  readonly memory: WebAssembly.Memory;
  readonly dots: (query: number, matrix: number, rows: number, dimensions: number, out: number) => void;
  readonly dots_many: (queries: number, n: number, matrix: number, rows: number, dimensions: number, out: number) => void;
}

const PAGE = 65_536;
let compiled: WebAssembly.Module | null | undefined;

/** The compiled module, once per process; null when this runtime cannot compile it. */
function dotsModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(readFileSync(asset('src', 'logic', 'selection', 'wasm', 'dots.wasm')));
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/** A kernel for a rows × dimensions matrix; `simd: false` forces the JavaScript loop. */
export function createDotKernel(rows: number, dimensions: number, options: { simd?: boolean } = {}): DotKernel {
  const module = options.simd === false || dimensions % 8 !== 0 ? null : dotsModule();
  return module === null ? jsKernel(rows, dimensions) : wasmKernel(module, rows, dimensions);
}

function wasmKernel(module: WebAssembly.Module, rows: number, dimensions: number): DotKernel {
  const instance = new WebAssembly.Instance(module);
  const { memory, dots, dots_many: dotsMany } = instance.exports as unknown as DotsExports;
  // Layout: queries (MAX_QUERIES_PER_PASS × dimensions floats) · out (MAX_QUERIES_PER_PASS × rows
  // floats) · matrix (rows × dimensions floats). `dots` uses the first query and output slot.
  const queryAt = 0;
  const outAt = MAX_QUERIES_PER_PASS * dimensions * 4;
  const outBytes = MAX_QUERIES_PER_PASS * rows * 4;
  const matrixAt = outAt + outBytes + (16 - ((outAt + outBytes) % 16)) % 16;
  const bytes = matrixAt + rows * dimensions * 4;
  const pages = Math.ceil(bytes / PAGE) - memory.buffer.byteLength / PAGE;
  if (pages > 0) memory.grow(pages);
  // Views are taken after the only grow: growing would detach them.
  const queries = new Float32Array(memory.buffer, queryAt, MAX_QUERIES_PER_PASS * dimensions);
  const query = queries.subarray(0, dimensions);
  const outs = Array.from({ length: MAX_QUERIES_PER_PASS }, (_, v) => new Float32Array(memory.buffer, outAt + v * rows * 4, rows));
  const out = outs[0] as Float32Array;
  const matrix = new Float32Array(memory.buffer, matrixAt, rows * dimensions);
  return {
    rows,
    dimensions,
    matrix,
    dots(vector, into) {
      query.set(vector);
      dots(queryAt, matrixAt, rows, dimensions, outAt);
      for (let i = 0; i < rows; i += 1) into[i] = out[i] as number;
    },
    dotsMany(vectors) {
      if (vectors.length > MAX_QUERIES_PER_PASS) throw new RangeError(`at most ${MAX_QUERIES_PER_PASS} queries per pass`);
      vectors.forEach((v, i) => queries.set(v, i * dimensions));
      dotsMany(queryAt, vectors.length, matrixAt, rows, dimensions, outAt);
      return outs.slice(0, vectors.length);
    },
  };
}

function jsKernel(rows: number, dimensions: number): DotKernel {
  const matrix = new Float32Array(rows * dimensions);
  const dots = (query: Float32Array, into: Float64Array): void => {
    for (let i = 0; i < rows; i += 1) {
      const base = i * dimensions;
      let sum = 0;
      for (let k = 0; k < dimensions; k += 1) sum += (query[k] as number) * (matrix[base + k] as number);
      into[i] = sum;
    }
  };
  const outs = Array.from({ length: MAX_QUERIES_PER_PASS }, () => new Float64Array(rows));
  return {
    rows,
    dimensions,
    matrix,
    dots,
    dotsMany(vectors) {
      if (vectors.length > MAX_QUERIES_PER_PASS) throw new RangeError(`at most ${MAX_QUERIES_PER_PASS} queries per pass`);
      vectors.forEach((v, i) => dots(v, outs[i] as Float64Array));
      return outs.slice(0, vectors.length);
    },
  };
}
