import t from 'tap';
import { TextVector, frequencyWeight } from '../../src/logic/selection/dense.js';
import { Language, tokenize } from '../../src/logic/selection/text.js';
import { sharedWordVectorTable } from '../../src/logic/selection/word-vectors.js';

const table = sharedWordVectorTable();
const meaning = (text: string, language: Language = Language.EN): Float32Array | undefined =>
  new TextVector(table).add(tokenize(text), language).unit();
const cos = (a: Float32Array | undefined, b: Float32Array | undefined): number => {
  if (a === undefined || b === undefined) return 0;
  let dot = 0;
  for (let i = 0; i < a.length; i += 1) dot += (a[i] ?? 0) * (b[i] ?? 0);
  return dot;
};

t.test('a frequent word weighs less than a rare one', async (t) => {
  t.ok(frequencyWeight(10) < frequencyWeight(1000));
  t.ok(frequencyWeight(1000) < frequencyWeight(50_000));
  t.ok(frequencyWeight(50_000) <= 1);
});

t.test('a request is closer in meaning to the agent that does it than to one that does not', async (t) => {
  const request = meaning('Is it safe to take ibuprofen with my blood pressure pills?');
  const drugs = meaning('Checks a medication list for drug interactions and dosing concerns.');
  const flights = meaning('Searches airlines for flights by route, dates and budget.');
  t.ok(cos(request, drugs) > cos(request, flights) + 0.1, `${cos(request, drugs).toFixed(2)} vs ${cos(request, flights).toFixed(2)}`);
});

t.test('stop words and unknown words add nothing; a text of only those has no meaning vector', async (t) => {
  t.equal(meaning('the of and to it'), undefined);
  t.equal(meaning('qwzxv plmokn'), undefined);
  const plain = meaning('translate contract');
  const padded = meaning('please translate the contract for me qwzxv');
  t.ok(cos(plain, padded) > 0.999);
});

t.test('a foreign word counts through its translation', async (t) => {
  const spanish = meaning('vuelo barato', Language.ES);
  const english = meaning('cheap flight');
  t.ok(cos(spanish, english) > 0.9);
});
