import t from 'tap';
import { CALIBRATION, SIGNALS, relevanceAt, signalContext, signalsAt } from '../../src/selection/calibration.js';

const text = Float64Array.of(0.9, 0.2, 0, 0.5);
const meaning = Float64Array.of(0.6, 0.55, 0.1, 0.3);
const standout = Float64Array.of(0.7, 0.2, 0, 0.1);

t.test('signals are measured against the best of the agents that passed the filters', async (t) => {
  const ctx = signalContext(text, meaning, standout, [1, 2]);
  t.equal(ctx.bestText, 0.2);
  t.equal(ctx.bestMeaning, 0.55);
  const s = signalsAt(ctx, 1);
  t.equal(s.length, SIGNALS.length);
  t.same([...s], [0.2, 0, 0.55, 0, 0.2]);
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
  for (const name of SIGNALS) t.ok(CALIBRATION.weights[name] > 0, `${name} counts for an agent, not against it`);
});
