import t from 'tap';
import { CALIBRATION, SIGNALS, relevanceAt, signalContext, signalsAt } from '../../src/logic/selection/calibration.js';

const text = Float64Array.of(0.9, 0.2, 0, 0.5);
const meaning = Float64Array.of(0.6, 0.55, 0.1, 0.3);
const standout = Float64Array.of(0.7, 0.2, 0, 0.1);

t.test('signals are measured against the best of the agents that passed the filters', async (t) => {
  const ctx = signalContext(text, meaning, standout, [1, 2]);
  t.equal(ctx.bestText, 0.2);
  t.equal(ctx.bestMeaning, 0.55);
  const s = signalsAt(ctx, 1);
  t.equal(s.length, SIGNALS.length);
  t.same([...s], [0.2, 0, 0.55, 0, 0.2, 0, 0, 0]);
});

t.test('example signals: the closest example against the best among agents that have examples; none for agents without', async (t) => {
  const examples = { cosine: Float64Array.of(0.8, 0, 0.5, 0.9), has: Float64Array.of(1, 0, 1, 1) };
  const ctx = signalContext(text, meaning, standout, [0, 1, 2], examples);
  t.equal(ctx.bestExample, 0.8, 'agent 3 did not pass the filters');
  t.same([...signalsAt(ctx, 2)].slice(5), [0.5, 0.5 - 0.8, 1]);
  t.same([...signalsAt(ctx, 1)].slice(5), [0, 0, 0], 'an agent without examples');
  // Without examples the logit is the description-only one: nothing about others' examples enters it.
  const bare = signalContext(text, meaning, standout, [0, 1, 2]);
  t.equal(relevanceAt(ctx, 1), relevanceAt(bare, 1));
});

t.test('no agent passing the filters leaves no best to compare with', async (t) => {
  const ctx = signalContext(text, meaning, standout, []);
  t.equal(ctx.bestText, 0);
  t.equal(ctx.bestMeaning, 0);
});

t.test('relevance is the logistic of the weighted signals, and grows with them', async (t) => {
  const ctx = signalContext(text, meaning, standout, [0, 1, 2, 3]);
  for (const a of [0, 1, 2, 3]) {
    const signals = signalsAt(ctx, a);
    const z = SIGNALS.reduce((sum, name, i) => sum + CALIBRATION.weights[name] * (signals[i] ?? 0), CALIBRATION.bias);
    t.ok(Math.abs(relevanceAt(ctx, a) - 1 / (1 + Math.exp(-z))) < 1e-12);
  }
  t.ok(relevanceAt(ctx, 0) > relevanceAt(ctx, 2), 'more text and meaning, more relevance');
  for (const name of SIGNALS) {
    // hasExamples is the offset that puts an example match on the description-only scale.
    if (name !== 'hasExamples') t.ok(CALIBRATION.weights[name] > 0, `${name} counts for an agent, not against it`);
  }
});
