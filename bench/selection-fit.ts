/**
 * Fits selection's calibration (src/logic/selection/calibration.ts) on labeled query sets and writes
 * src/logic/selection/calibration-fit.ts.
 *   npm run fit:selection -- [--train FILE]... [--check FILE]... [--dry-run] [--curve]
 * --train defaults to bench/data/selection-holdout.json; --check defaults to the shared set
 * (../shared/data/selection/queries.json), which is then never used for fitting, so its report
 * is an honest estimate for queries the model has not seen.
 *
 * 1. Every (query, agent that passed the filters) pair is a sample: label 1 when the agent is in
 *    `relevant`, 0 when it is a wrong pick; `acceptable` agents are left out (neither right nor
 *    wrong). Features: calibration.ts's signals.
 * 2. Logistic regression by Newton's method with an L2 penalty (λ = 1) on the weights.
 * 3. Operating point: the clause weight and the cut-off t on the fitted relevance that come
 *    closest to the quality targets on the training queries (fitCalibration below), through the
 *    real selection code.
 *    The bias is then shifted by logit(0.7) − logit(t), so the default minConfidence 0.7 is that
 *    cut-off.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../src/support/paths.js';
import { SIGNALS, signalsAt } from '../src/logic/selection/calibration.js';
import type { Calibration, Signal } from '../src/logic/selection/calibration.js';
import { TARGETS, buildCatalogIndex, evaluateSelections, selectAgents } from '../src/logic/selection/index.js';
import type { CatalogIndex, LabeledQuery, Metrics } from '../src/logic/selection/index.js';
import { candidateSignals } from '../src/logic/selection/select.js';
import { DEFAULT_DATA_DIR, UNIFORM_STATS, formatReport, loadDataset, loadExamples, requestOf, withExamples } from './selection-eval.js';
import type { CatalogAgent } from '../src/logic/selection/index.js';

const L2 = 1;
const DEFAULT_CUT = 0.7;
export const DEFAULT_TRAIN = path.join(packageRoot, 'bench', 'data', 'selection-holdout.json');
const OUT_FILE = path.join(packageRoot, 'src', 'logic', 'selection', 'calibration-fit.ts');

interface Samples {
  readonly x: Float64Array[];
  readonly y: number[];
}

/**
 * The catalog states a calibration is fitted over: without examples, with every agent's, and with
 * every other agent's. Pooling them makes relevance mean the same with and without examples, and
 * the mixed catalog teaches the fit what an example match is worth against a description alone,
 * so agents without examples are not ranked below the others merely for lacking them.
 */
export function exampleCatalogs(agents: readonly CatalogAgent[], examplesFile?: string): CatalogIndex[] {
  const examples = loadExamples(examplesFile);
  return (['none', 'half', 'all'] as const).map((coverage) => buildCatalogIndex(withExamples(agents, examples, coverage)));
}

function asList(index: CatalogIndex | readonly CatalogIndex[]): readonly CatalogIndex[] {
  return Array.isArray(index) ? index : [index as CatalogIndex];
}

export function samplesOf(catalogs: CatalogIndex | readonly CatalogIndex[], queries: readonly LabeledQuery[]): Samples {
  const x: Float64Array[] = [];
  const y: number[] = [];
  for (const index of asList(catalogs)) {
    const s = samplesOfOne(index, queries);
    x.push(...s.x);
    y.push(...s.y);
  }
  return { x, y };
}

function samplesOfOne(index: CatalogIndex, queries: readonly LabeledQuery[]): Samples {
  const stats = new Map(index.agents.map((a) => [a.agent.id, UNIFORM_STATS] as const));
  const x: Float64Array[] = [];
  const y: number[] = [];
  for (const q of queries) {
    const c = candidateSignals(index, stats, requestOf(q));
    const relevant = new Set(q.relevant);
    const acceptable = new Set(q.acceptable ?? []);
    const whole = c.views[0];
    if (whole === undefined) continue;
    c.eligible.forEach((a) => {
      const id = index.agents[a]?.agent.id ?? '';
      if (acceptable.has(id)) return;
      x.push(signalsAt(whole.signals, a));
      y.push(relevant.has(id) ? 1 : 0);
    });
  }
  return { x, y };
}

/** Solves A·x = b for a small dense symmetric positive-definite A (Gaussian elimination). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i] ?? 0]);
  for (let col = 0; col < n; col += 1) {
    let pivot = col;
    for (let r = col + 1; r < n; r += 1) if (Math.abs(m[r]?.[col] ?? 0) > Math.abs(m[pivot]?.[col] ?? 0)) pivot = r;
    [m[col], m[pivot]] = [m[pivot] as number[], m[col] as number[]];
    const p = m[col]?.[col] ?? 1;
    for (let r = 0; r < n; r += 1) {
      if (r === col) continue;
      const f = (m[r]?.[col] ?? 0) / p;
      for (let k = col; k <= n; k += 1) (m[r] as number[])[k] = (m[r]?.[k] ?? 0) - f * (m[col]?.[k] ?? 0);
    }
  }
  return m.map((row, i) => (row[n] ?? 0) / (row[i] ?? 1));
}

/** L2-penalised logistic regression; returns [w_1 … w_k, bias]. */
export function fitLogistic({ x, y }: Samples, l2 = L2, iterations = 50): number[] {
  const k = SIGNALS.length;
  let beta = new Array<number>(k + 1).fill(0);
  for (let it = 0; it < iterations; it += 1) {
    const grad = new Array<number>(k + 1).fill(0);
    const hess = Array.from({ length: k + 1 }, () => new Array<number>(k + 1).fill(0));
    x.forEach((row, n) => {
      const features = [...row, 1];
      let z = 0;
      features.forEach((f, i) => {
        z += f * (beta[i] ?? 0);
      });
      const p = 1 / (1 + Math.exp(-Math.max(-30, Math.min(30, z))));
      const r = p - (y[n] ?? 0);
      const w = p * (1 - p);
      features.forEach((fi, i) => {
        grad[i] = (grad[i] ?? 0) + r * fi;
        features.forEach((fj, j) => {
          (hess[i] as number[])[j] = (hess[i]?.[j] ?? 0) + w * fi * fj;
        });
      });
    });
    for (let i = 0; i < k; i += 1) {
      grad[i] = (grad[i] ?? 0) + l2 * (beta[i] ?? 0);
      (hess[i] as number[])[i] = (hess[i]?.[i] ?? 0) + l2;
    }
    (hess[k] as number[])[k] = (hess[k]?.[k] ?? 0) + 1e-9;
    const step = solve(hess, grad);
    beta = beta.map((b, i) => b - (step[i] ?? 0));
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  return beta;
}

const logit = (p: number): number => Math.log(p / (1 - p));

export function calibrationFrom(beta: readonly number[], cut: number, clauseWeight: number): Calibration {
  const weights = Object.fromEntries(SIGNALS.map((s, i) => [s, beta[i] ?? 0])) as Record<Signal, number>;
  return { weights, bias: (beta[SIGNALS.length] ?? 0) + logit(DEFAULT_CUT) - logit(cut), clauseWeight };
}

export function evaluateWith(index: CatalogIndex, queries: readonly LabeledQuery[], calibration: Calibration): ReturnType<typeof evaluateSelections> {
  const stats = new Map(index.agents.map((a) => [a.agent.id, UNIFORM_STATS] as const));
  const selections = new Map<string, readonly string[]>();
  for (const q of queries) {
    selections.set(q.id, selectAgents(index, stats, requestOf(q), undefined, calibration).selected.map((s) => s.agent.id));
  }
  return evaluateSelections(queries, selections);
}

/**
 * How far a result falls short of the quality targets (top-1, no-match, precision), summed; 0 when
 * all are met. Minimising the shortfall weighs the targets alike without letting either metric be
 * traded away entirely (no-match queries are about one in ten, so counting every query once would
 * give them up for top-1; averaging the two accuracies gives top-1 up for them).
 */
function shortfall(m: Metrics): number {
  return (
    Math.max(0, TARGETS.top1 - (m.top1 ?? 0)) +
    Math.max(0, TARGETS.noMatch - (m.noMatch ?? 0)) +
    Math.max(0, TARGETS.precision - (m.precision ?? 0))
  );
}

const CUTS = Array.from({ length: 37 }, (_, i) => 0.05 + i * 0.025);
/** Weights of a clause read on its own (0: clauses are not read on their own). */
const CLAUSE_WEIGHTS = [0, 0.8, 0.9, 1];

/**
 * Fits on `train` and picks the clause weight and cut-off with the smallest shortfall; ties go to
 * higher recall. Returns the calibration with the shifted bias.
 */
export function fitCalibration(
  catalogs: CatalogIndex | readonly CatalogIndex[],
  train: readonly LabeledQuery[],
): { calibration: Calibration; cut: number; train: Metrics; beta: number[] } {
  const indexes = asList(catalogs);
  const beta = fitLogistic(samplesOf(indexes, train));
  let chosen: { calibration: Calibration; cut: number; train: Metrics; score: number } | undefined;
  for (const clauseWeight of CLAUSE_WEIGHTS) {
    const runs = CUTS.map((cut) => {
      const calibration = calibrationFrom(beta, cut, clauseWeight);
      // One cut-off for every catalog state: its shortfall is summed over them, so 0.7 means the same with and without examples.
      const perCatalog = indexes.map((index) => evaluateWith(index, train, calibration).overall);
      return { calibration, cut, train: perCatalog[perCatalog.length - 1] as Metrics, perCatalog };
    });
    for (const run of runs) {
      const score = run.perCatalog.reduce((sum, m) => sum - shortfall(m) + 1e-3 * (m.recallAtK ?? 0), 0);
      if (chosen === undefined || score > chosen.score) chosen = { calibration: run.calibration, cut: run.cut, train: run.train, score };
    }
  }
  if (chosen === undefined) throw new Error('no cut-off evaluated');
  return { ...chosen, beta };
}

function round(x: number, digits = 4): number {
  return Math.round(x * 10 ** digits) / 10 ** digits;
}

function writeFit(calibration: Calibration, cut: number, files: readonly string[], queries: number, train: Metrics): void {
  const sources = files.map((f) => `${path.relative(packageRoot, f)} (sha256 ${createHash('sha256').update(readFileSync(f)).digest('hex').slice(0, 16)})`);
  const weights = SIGNALS.map((s) => `    ${s}: ${round(calibration.weights[s])},`).join('\n');
  const text = `/**
 * Written by \`npm run fit:selection\` (bench/selection-fit.ts); do not edit by hand.
 * Fitted on ${queries} labeled queries: ${sources.join(', ')}.
 * Each query is read against three catalog states: without examples, with every other agent's and
 * with every agent's, from the shared data set's agent-examples.json.
 * Cut-off on the fitted relevance: ${round(cut, 3)}, moved to 0.7 by the bias.
 * On the training queries: top-1 ${train.top1?.toFixed(3)}, recall@k ${train.recallAtK?.toFixed(3)}, precision ${train.precision?.toFixed(3)}, no-match ${train.noMatch?.toFixed(3)}.
 */
import type { Calibration } from './calibration.js';

export const FITTED_CALIBRATION: Calibration = {
  weights: {
${weights}
  },
  bias: ${round(calibration.bias)},
  clauseWeight: ${calibration.clauseWeight},
};
`;
  writeFileSync(OUT_FILE, text);
}

/**
 * What a fitted model (fitLogistic's `beta`) trades on `check` as the cut-off moves (--curve):
 * top-1 against no-match and precision, to tell a change that improves the curve from one that
 * only moves the operating point along it.
 */
export function tradeOffCurve(
  index: CatalogIndex,
  beta: readonly number[],
  check: readonly LabeledQuery[],
  clauseWeight: number,
): { cut: number; metrics: Metrics }[] {
  return CURVE_CUTS.map((cut) => ({ cut, metrics: evaluateWith(index, check, calibrationFrom(beta, cut, clauseWeight)).overall }));
}

const CURVE_CUTS = Array.from({ length: 10 }, (_, i) => 0.4 + i * 0.05);

function formatCurve(curve: readonly { cut: number; metrics: Metrics }[], name: string): string {
  const f = (x: number | null): string => (x === null ? '  -  ' : x.toFixed(3));
  const rows = curve.map(({ cut, metrics: m }) => `${cut.toFixed(2).padStart(5)}  ${f(m.top1)}  ${f(m.noMatch)}     ${f(m.precision)}`);
  return [`curve on ${name} (cut-off on the fitted relevance)`, '  cut  top-1  no-match  precision', ...rows].join('\n');
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const all = (name: string): string[] => args.flatMap((a, i) => (args[i - 1] === name ? [path.resolve(a)] : []));
  const trainFiles = all('--train').length > 0 ? all('--train') : [DEFAULT_TRAIN];
  const checkFiles = all('--check').length > 0 ? all('--check') : [path.join(DEFAULT_DATA_DIR, 'queries.json')];
  const { agents } = loadDataset();
  const catalogs = exampleCatalogs(agents);
  const states = ['without examples', 'half the agents with examples', 'with examples'];
  const read = (f: string): LabeledQuery[] => JSON.parse(readFileSync(f, 'utf8')) as LabeledQuery[];
  const train = trainFiles.flatMap(read);
  const { calibration, cut, train: trainMetrics, beta } = fitCalibration(catalogs, train);
  console.log(`fitted on ${train.length} queries × ${catalogs.length} catalog states; cut-off ${cut.toFixed(3)}; clause weight ${calibration.clauseWeight}; weights ${JSON.stringify(calibration.weights)}; bias ${calibration.bias.toFixed(3)}`);
  catalogs.forEach((index, i) => console.log(formatReport(`training queries, ${states[i]}`, evaluateWith(index, train, calibration))));
  for (const f of checkFiles) {
    catalogs.forEach((index, i) => console.log(`\n${formatReport(`check: ${path.relative(process.cwd(), f)}, ${states[i]}`, evaluateWith(index, read(f), calibration))}`));
  }
  if (args.includes('--curve')) {
    for (const f of checkFiles) {
      catalogs.forEach((index, i) => console.log(`\n${formatCurve(tradeOffCurve(index, beta, read(f), calibration.clauseWeight), `${path.relative(process.cwd(), f)}, ${states[i]}`)}`));
    }
  }
  if (!args.includes('--dry-run')) {
    writeFit(calibration, cut, trainFiles, train.length, trainMetrics);
    console.log(`\nwrote ${path.relative(process.cwd(), OUT_FILE)}`);
  }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
