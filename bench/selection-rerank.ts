/**
 * What the optional semantic reranker (src/logic/selection/semantic-rerank.ts) adds and costs: every
 * metric of the static engine and of the reranked one, without and with examples, on one query
 * file, and the milliseconds a rerank takes (the agents' vectors cached after first use, as in a
 * running service). With --grid it scores a few parameter settings (choose them on a set you do
 * not report as unseen).
 *   tsx bench/selection-rerank.ts [--queries FILE] [--grid] [--budget MS]
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildCatalogIndex, evaluateSelections, selectAgents } from '../src/logic/selection/index.js';
import type { EvaluationReport, LabeledQuery } from '../src/logic/selection/index.js';
import { RERANK, createSemanticReranker, loadMiniLm } from '../src/logic/selection/semantic-rerank.js';
import type { RerankParams, SentenceEncoder } from '../src/logic/selection/semantic-rerank.js';
import { DEFAULT_DATA_DIR, UNIFORM_STATS, loadDataset, loadExamples, requestOf, withExamples } from './selection-eval.js';

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const queriesFile = arg('--queries') ?? path.join(DEFAULT_DATA_DIR, 'queries.json');
const budgetMs = Number(arg('--budget') ?? 10_000);
const { agents, queries } = loadDataset(DEFAULT_DATA_DIR, queriesFile);
const examples = loadExamples();

const loadStart = performance.now();
const model = await loadMiniLm();
console.log(`encoder loaded in ${(performance.now() - loadStart).toFixed(0)} ms`);
// The grid re-reads the same texts: remember the model's answers (the timed run does not).
const memo = new Map<string, number[]>();
const memoized: SentenceEncoder = {
  async embed(texts) {
    const missing = texts.filter((t) => !memo.has(t));
    if (missing.length > 0) (await model.embed(missing)).forEach((v, i) => memo.set(missing[i] as string, v));
    return texts.map((t) => memo.get(t) as number[]);
  },
};

function line(label: string, r: EvaluationReport): string {
  const m = r.overall;
  const f = (x: number | null): string => (x === null ? '  -  ' : x.toFixed(3));
  return `${label.padEnd(34)} top-1 ${f(m.top1)}  recall ${f(m.recallAtK)}  precision ${f(m.precision)}  no-match ${f(m.noMatch)}`;
}

async function evaluate(
  catalog: ReturnType<typeof withExamples>,
  params: RerankParams | null,
  encoder: SentenceEncoder,
  timings?: number[],
  reranker = createSemanticReranker({ loadEncoder: () => Promise.resolve(encoder), budgetMs, ...(params === null ? {} : { params }) }),
): Promise<EvaluationReport> {
  const index = buildCatalogIndex(catalog);
  const stats = new Map(catalog.map((a) => [a.id, UNIFORM_STATS] as const));
  const selections = new Map<string, readonly string[]>();
  for (const q of queries as readonly LabeledQuery[]) {
    if (params === null) {
      selections.set(q.id, selectAgents(index, stats, requestOf(q)).selected.map((s) => s.agent.id));
      continue;
    }
    const outcome = await reranker.rerank(index, stats, requestOf(q));
    // Requests the encoder did not read (no or one candidate) cost about one static selection.
    if (outcome.reranked || outcome.reason !== 'nothing-to-rerank') timings?.push(outcome.ms);
    selections.set(q.id, outcome.result.selected.map((s) => s.agent.id));
  }
  return evaluateSelections(queries, selections);
}

console.log(`queries: ${queriesFile}`);
for (const coverage of ['none', 'all'] as const) {
  const catalog = withExamples(agents, examples, coverage);
  console.log(`\n${coverage === 'none' ? 'without' : 'with'} examples`);
  console.log(line('static engine', await evaluate(catalog, null, memoized)));
  if (args.includes('--grid')) {
    for (const weight of [0.5, 1, 2]) {
      for (const margin of [0, 0.05, 0.1, 0.2]) {
        const params = { ...RERANK, weight, margin };
        console.log(line(`rerank weight ${weight} margin ${margin}`, await evaluate(catalog, params, memoized)));
      }
    }
    continue;
  }
  // Timed with the real encoder: each agent's texts are encoded once (first sight), the request every time.
  const reranker = createSemanticReranker({ loadEncoder: () => Promise.resolve(model), budgetMs });
  const cold: number[] = [];
  const warm: number[] = [];
  console.log(line(`reranked (${JSON.stringify(RERANK)})`, await evaluate(catalog, RERANK, model, cold, reranker)));
  await evaluate(catalog, RERANK, model, warm, reranker);
  for (const [label, timings] of [['agents met for the first time', cold], ['agents cached', warm]] as const) {
    timings.sort((a, b) => a - b);
    const at = (p: number): string => (timings[Math.floor(timings.length * p)] ?? 0).toFixed(1);
    console.log(`rerank ms per request the encoder read (${timings.length} of ${queries.length}), ${label}: p50 ${at(0.5)}, p90 ${at(0.9)}, p99 ${at(0.99)}`);
  }
}
