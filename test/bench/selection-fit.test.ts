import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FITTED_CALIBRATION } from '../../src/logic/selection/calibration-fit.js';
import { SIGNALS } from '../../src/logic/selection/calibration.js';
import { buildCatalogIndex } from '../../src/logic/selection/index.js';
import type { LabeledQuery } from '../../src/logic/selection/index.js';
import { packageRoot } from '../../src/support/paths.js';
import { exampleCatalogs, fitCalibration, fitLogistic, samplesOf, tradeOffCurve } from '../../bench/selection-fit.js';
import { loadDataset } from '../../bench/selection-eval.js';

t.test('logistic regression recovers the weights that generated the labels', async (t) => {
  // Deterministic pseudo-random samples labelled by a known model.
  let seed = 7;
  const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const truth = [2, -1, 3, 0.5, -2, -1];
  const x: Float64Array[] = [];
  const y: number[] = [];
  for (let n = 0; n < 20_000; n += 1) {
    const row = Float64Array.from(SIGNALS, () => random() * 2 - 1);
    const z = row.reduce((sum, v, i) => sum + v * (truth[i] ?? 0), truth[SIGNALS.length] ?? 0);
    x.push(row);
    y.push(random() < 1 / (1 + Math.exp(-z)) ? 1 : 0);
  }
  const beta = fitLogistic({ x, y }, 0);
  beta.forEach((b, i) => t.ok(Math.abs(b - (truth[i] ?? 0)) < 0.15, `weight ${i}: ${b.toFixed(3)} ≈ ${truth[i]}`));
});

t.test('the committed calibration is what the fitting script produces from its training files', async (t) => {
  const header = readFileSync(path.join(packageRoot, 'src', 'logic', 'selection', 'calibration-fit.ts'), 'utf8');
  const files = [...header.matchAll(/([\w./-]+\.json) \(sha256/g)].map((m) => path.resolve(packageRoot, m[1] ?? ''));
  t.ok(files.length > 0, `training files named in calibration-fit.ts: ${files.join(', ')}`);
  const train = files.flatMap((f) => JSON.parse(readFileSync(f, 'utf8')) as LabeledQuery[]);
  const { calibration } = fitCalibration(exampleCatalogs(loadDataset().agents), train);
  for (const s of SIGNALS) t.ok(Math.abs(calibration.weights[s] - FITTED_CALIBRATION.weights[s]) < 1e-3, `${s} ${calibration.weights[s]}`);
  t.ok(Math.abs(calibration.bias - FITTED_CALIBRATION.bias) < 1e-3, 'bias');
  t.equal(calibration.clauseWeight, FITTED_CALIBRATION.clauseWeight);
});

t.test('the trade-off curve: a higher cut-off never selects more, so no-match never falls and top-1 never rises', async (t) => {
  const { agents, queries } = loadDataset();
  const holdout = JSON.parse(readFileSync(path.join(packageRoot, 'bench', 'data', 'selection-holdout.json'), 'utf8')) as LabeledQuery[];
  const index = buildCatalogIndex(agents);
  const curve = tradeOffCurve(index, fitLogistic(samplesOf(index, holdout)), queries, FITTED_CALIBRATION.clauseWeight);
  t.equal(curve.length, 10);
  for (let i = 1; i < curve.length; i += 1) {
    const [before, after] = [curve[i - 1]?.metrics, curve[i]?.metrics];
    t.ok((after?.noMatch ?? 0) >= (before?.noMatch ?? 0), `no-match at cut ${curve[i]?.cut.toFixed(2)}`);
    t.ok((after?.top1 ?? 0) <= (before?.top1 ?? 0), `top-1 at cut ${curve[i]?.cut.toFixed(2)}`);
  }
  // The two ends differ: the curve is a real sweep, not one operating point repeated.
  t.ok((curve[0]?.metrics.top1 ?? 0) > (curve[curve.length - 1]?.metrics.top1 ?? 0));
  t.ok((curve[0]?.metrics.noMatch ?? 0) < (curve[curve.length - 1]?.metrics.noMatch ?? 0));
});
