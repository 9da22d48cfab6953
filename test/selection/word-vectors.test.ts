import t from 'tap';
import { decodeWordVectors, encodeWordVectors, sharedWordVectorTable, unitRow, wordCosine } from '../../src/logic/selection/word-vectors.js';

const provenance = { model: 'test', forms: ['{word}'], vocabulary: 'three words', pcaWords: 3, droppedComponents: 0 };

t.test('a table survives encoding and decoding, values within int8 quantisation', async (t) => {
  const values = Float32Array.of(0.5, -1, 0.25, 0.1, 0, 2, -0.3, 0.7);
  const bytes = encodeWordVectors({
    header: provenance,
    words: ['alpha', 'beta', 'gamma', 'delta'],
    ranks: [0, 5, 9, 12],
    dimensions: 2,
    values,
    mean: Float32Array.of(1, 2, 3),
    axes: Float32Array.of(1, 0, 0, 0, 1, 0),
  });
  const table = decodeWordVectors(bytes);
  t.same(table.words, ['alpha', 'beta', 'gamma', 'delta']);
  t.same([...table.rank], [0, 5, 9, 12]);
  t.equal(table.rows.get('gamma'), 2);
  t.same(table.provenance, provenance);
  t.equal(table.modelDimensions, 3);
  for (let i = 0; i < values.length; i += 1) {
    const decoded = (table.values[i] ?? 0) * (table.scale[i % 2] ?? 0);
    t.ok(Math.abs(decoded - (values[i] ?? 0)) <= (table.scale[i % 2] ?? 0) / 2 + 1e-7, `value ${i}`);
  }
});

t.test('a file that is not a table, or is cut short, is refused with a clear error', async (t) => {
  t.throws(() => decodeWordVectors(Buffer.from('nope, not vectors')), /bad magic/);
  const bytes = encodeWordVectors({
    header: provenance, words: ['a', 'b'], ranks: [0, 1], dimensions: 1,
    values: Float32Array.of(1, -1), mean: Float32Array.of(0), axes: Float32Array.of(1),
  });
  t.throws(() => decodeWordVectors(bytes.subarray(0, bytes.length - 1)), /truncated/);
});

t.test('the shipped table holds 100,000 words in frequency order, with related words close in meaning', async (t) => {
  const table = sharedWordVectorTable();
  t.equal(table.words.length, 100_000);
  t.equal(table.dimensions, 128);
  t.equal(table.words[0], 'the');
  t.ok((table.rank[1] ?? 0) > (table.rank[0] ?? 0));
  const near = wordCosine(table, 'flight', 'airline') ?? 0;
  const far = wordCosine(table, 'flight', 'invoice') ?? 1;
  t.ok(near > far + 0.3, `flight~airline ${near.toFixed(2)} vs flight~invoice ${far.toFixed(2)}`);
  t.ok((wordCosine(table, 'ibuprofen', 'medication') ?? 0) > 0.4);
  t.equal(wordCosine(table, 'flight', 'qwzxv'), undefined);
  let norm = 0;
  for (const x of unitRow(table, table.rows.get('contract') ?? 0)) norm += x * x;
  t.ok(Math.abs(norm - 1) < 1e-5);
});
