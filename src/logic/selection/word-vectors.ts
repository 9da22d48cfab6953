/**
 * Static word vectors distilled from the sentence encoder all-MiniLM-L6-v2
 * (scripts/build-word-vectors.ts says how). Selection adds up the vectors of a text's words to
 * compare the meaning of a request with an agent's description without running a transformer
 * per request.
 *
 * File layout (little-endian; every section starts on a 4-byte boundary):
 *   "BWV1" · u32 header length · JSON header · words (UTF-8, "\n"-separated) · ranks (i32 × words)
 *   · scales (f32 × dimensions) · mean (f32 × modelDimensions) · axes (f32 × dimensions ×
 *   modelDimensions) · values (i8 × words × dimensions, value × scale of its dimension)
 * `mean` and `axes` are the projection from the encoder's space, kept so the table can be
 * checked against the encoder (test/selection/word-vectors.test.ts).
 */
import { readFileSync } from 'node:fs';
import { asset } from '../../support/paths.js';

export const WORD_VECTORS_FILE = asset('assets', 'word-vectors.bin');
const MAGIC = 'BWV1';

/** Provenance recorded by the build script. */
export interface WordVectorProvenance {
  readonly model: string;
  readonly forms: readonly string[];
  readonly vocabulary: string;
  readonly pcaWords: number;
  readonly droppedComponents: number;
}

interface FileHeader extends WordVectorProvenance {
  readonly format: 1;
  readonly words: number;
  readonly dimensions: number;
  readonly modelDimensions: number;
  readonly wordBytes: number;
}

export interface WordVectorTable {
  readonly provenance: WordVectorProvenance;
  readonly dimensions: number;
  readonly modelDimensions: number;
  readonly words: readonly string[];
  readonly rows: ReadonlyMap<string, number>;
  /** Corpus-frequency rank of each row's word, 0 = most frequent. */
  readonly rank: Int32Array;
  readonly scale: Float32Array;
  readonly values: Int8Array;
  readonly mean: Float32Array;
  readonly axes: Float32Array;
}

export interface WordVectorInput {
  readonly header: WordVectorProvenance;
  readonly words: readonly string[];
  readonly ranks: readonly number[];
  readonly dimensions: number;
  /** words × dimensions, before quantisation. */
  readonly values: Float32Array;
  readonly mean: Float32Array;
  readonly axes: Float32Array;
}

const pad4 = (n: number): number => (n + 3) & ~3;

/** Serialises a table; each dimension is quantised to int8 with its own scale. */
export function encodeWordVectors(input: WordVectorInput): Buffer {
  const { words, ranks, dimensions, values, mean, axes } = input;
  const scale = new Float32Array(dimensions);
  for (let i = 0; i < values.length; i += 1) {
    const d = i % dimensions;
    scale[d] = Math.max(scale[d] as number, Math.abs(values[i] as number));
  }
  for (let d = 0; d < dimensions; d += 1) scale[d] = (scale[d] as number) / 127 || 1;
  const quantised = new Int8Array(values.length);
  for (let i = 0; i < values.length; i += 1) quantised[i] = Math.round((values[i] as number) / (scale[i % dimensions] as number));
  const wordBytes = Buffer.from(words.join('\n'), 'utf8');
  const header: FileHeader = {
    format: 1,
    ...input.header,
    words: words.length,
    dimensions,
    modelDimensions: mean.length,
    wordBytes: wordBytes.length,
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const sections = [
    wordBytes,
    Buffer.from(Int32Array.from(ranks).buffer),
    Buffer.from(scale.buffer),
    Buffer.from(Float32Array.from(mean).buffer),
    Buffer.from(Float32Array.from(axes).buffer),
    Buffer.from(quantised.buffer),
  ];
  const parts: Buffer[] = [Buffer.from(MAGIC, 'latin1'), Buffer.alloc(4), headerBytes];
  parts[1]?.writeUInt32LE(headerBytes.length);
  let length = 8 + headerBytes.length;
  for (const section of sections) {
    const gap = pad4(length) - length;
    if (gap > 0) parts.push(Buffer.alloc(gap));
    parts.push(section);
    length = pad4(length) + section.length;
  }
  return Buffer.concat(parts);
}

/** Parses a table written by encodeWordVectors. */
export function decodeWordVectors(bytes: Buffer): WordVectorTable {
  if (bytes.toString('latin1', 0, 4) !== MAGIC) throw new Error('not a word-vector table (bad magic)');
  const headerLength = bytes.readUInt32LE(4);
  const header = JSON.parse(bytes.toString('utf8', 8, 8 + headerLength)) as FileHeader;
  if (header.format !== 1) throw new Error(`unsupported word-vector table format ${String(header.format)}`);
  const { words: count, dimensions, modelDimensions } = header;
  // Copy into a fresh, aligned buffer: typed arrays need 4-byte alignment.
  const aligned = new Uint8Array(bytes.length);
  aligned.set(bytes);
  let offset = 8 + headerLength;
  const take = (length: number): number => {
    offset = pad4(offset);
    const start = offset;
    offset += length;
    if (offset > bytes.length) throw new Error('word-vector table is truncated');
    return start;
  };
  const wordStart = take(header.wordBytes);
  const words = bytes.toString('utf8', wordStart, wordStart + header.wordBytes).split('\n');
  if (words.length !== count) throw new Error(`word-vector table lists ${words.length} words, header says ${count}`);
  const rank = new Int32Array(aligned.buffer, take(count * 4), count);
  const scale = new Float32Array(aligned.buffer, take(dimensions * 4), dimensions);
  const mean = new Float32Array(aligned.buffer, take(modelDimensions * 4), modelDimensions);
  const axes = new Float32Array(aligned.buffer, take(dimensions * modelDimensions * 4), dimensions * modelDimensions);
  const values = new Int8Array(aligned.buffer, take(count * dimensions), count * dimensions);
  const rows = new Map<string, number>();
  words.forEach((word, row) => rows.set(word, row));
  const { model, forms, vocabulary, pcaWords, droppedComponents } = header;
  return {
    provenance: { model, forms, vocabulary, pcaWords, droppedComponents },
    dimensions,
    modelDimensions,
    words,
    rows,
    rank,
    scale,
    values,
    mean,
    axes,
  };
}

let shared: WordVectorTable | undefined;

/** The table shipped in assets/, read once per process (about 14 MB, 50 ms). */
export function sharedWordVectorTable(): WordVectorTable {
  shared ??= decodeWordVectors(readFileSync(WORD_VECTORS_FILE));
  return shared;
}

/** Adds `weight` × the vector of `row` to `into` (length = dimensions). */
export function addRow(table: WordVectorTable, row: number, weight: number, into: Float32Array): void {
  const { dimensions, values, scale } = table;
  const base = row * dimensions;
  for (let d = 0; d < dimensions; d += 1) into[d] = (into[d] as number) + weight * (values[base + d] as number) * (scale[d] as number);
}

/** The unit vector of one word's row (dequantised), for word-to-word cosines. */
export function unitRow(table: WordVectorTable, row: number): Float32Array {
  const out = new Float32Array(table.dimensions);
  addRow(table, row, 1, out);
  let norm = 0;
  for (const x of out) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  for (let d = 0; d < out.length; d += 1) out[d] = (out[d] as number) / norm;
  return out;
}

/** Cosine of two words of the table; undefined when either is missing. */
export function wordCosine(table: WordVectorTable, a: string, b: string): number | undefined {
  const ra = table.rows.get(a);
  const rb = table.rows.get(b);
  if (ra === undefined || rb === undefined) return undefined;
  const x = unitRow(table, ra);
  const y = unitRow(table, rb);
  let dot = 0;
  for (let d = 0; d < x.length; d += 1) dot += (x[d] as number) * (y[d] as number);
  return dot;
}
