/**
 * Scores agent selection on a labeled data set (shared/data/selection/README.md).
 *   tsx bench/selection-eval.ts [--data DIR] [--queries FILE] [--verbose]
 * DIR defaults to ../shared/data/selection beside the package (env SELECTION_DATA_DIR);
 * FILE defaults to DIR/queries.json (env SELECTION_QUERIES). Any query file in that format is
 * scored the same way against DIR's catalog. Exits 1 below the targets.
 * The select step is a function from a labeled query to selected ids, so the same report can be
 * produced through the HTTP API by passing another implementation to `runEvaluation`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../src/support/paths.js';
import { Progress } from './progress.js';
import {
  buildCatalogIndex,
  evaluateSelections,
  missedTargets,
  selectAgents,
} from '../src/logic/selection/index.js';
import type { AgentRuntimeStats, CatalogAgent, EvaluationReport, LabeledQuery, Metrics, SelectionRequest } from '../src/logic/selection/index.js';

export type SelectFn = (query: LabeledQuery) => Promise<readonly string[]>;

export interface Dataset {
  readonly agents: readonly CatalogAgent[];
  readonly queries: readonly LabeledQuery[];
}

export const DEFAULT_DATA_DIR = process.env['SELECTION_DATA_DIR'] ?? path.join(packageRoot, '..', 'shared', 'data', 'selection');

/** Example requests per agent id (../shared/data/selection/agent-examples.json). */
export type ExampleSet = Readonly<Record<string, readonly string[]>>;

export const DEFAULT_EXAMPLES_FILE = path.join(DEFAULT_DATA_DIR, 'agent-examples.json');

export function loadExamples(file = DEFAULT_EXAMPLES_FILE): ExampleSet {
  return JSON.parse(readFileSync(file, 'utf8')) as ExampleSet;
}

/**
 * How many of the catalog's agents carry their examples: 'none' (the catalog as registered
 * without them), 'all', or 'half' (every other agent in catalog order, the mixed catalog a
 * service sees while owners adopt examples).
 */
export type ExampleCoverage = 'none' | 'half' | 'all';

export function withExamples(agents: readonly CatalogAgent[], examples: ExampleSet, coverage: ExampleCoverage): CatalogAgent[] {
  return agents.map((agent, i) => {
    const own = examples[agent.id];
    const give = coverage === 'all' || (coverage === 'half' && i % 2 === 0);
    return give && own !== undefined ? { ...agent, examples: own } : { ...agent, examples: [] };
  });
}

export function loadDataset(dataDir = DEFAULT_DATA_DIR, queriesFile = path.join(dataDir, 'queries.json')): Dataset {
  const agents = JSON.parse(readFileSync(path.join(dataDir, 'agents.json'), 'utf8')) as CatalogAgent[];
  const queries = JSON.parse(readFileSync(queriesFile, 'utf8')) as LabeledQuery[];
  return { agents, queries };
}

/** Same stats for every agent, as the data README asks, so only the text decides. */
export const UNIFORM_STATS: AgentRuntimeStats = { healthy: true, circuitOpen: false, successRate: 1 };

/** What the service receives for a labeled query: its query, context and criteria, nothing else. */
export function requestOf(q: LabeledQuery): SelectionRequest {
  return { query: q.query, context: q.context, ...(q.selectionCriteria !== undefined ? { selectionCriteria: q.selectionCriteria } : {}) };
}

/** Selection in this process, straight through the pure engine. */
export function inProcessSelect(agents: readonly CatalogAgent[]): SelectFn {
  const index = buildCatalogIndex(agents);
  const stats = new Map(agents.map((a) => [a.id, UNIFORM_STATS] as const));
  return (q) =>
    Promise.resolve(
      selectAgents(index, stats, requestOf(q)).selected.map((s) => s.agent.id),
    );
}

export async function runEvaluation(queries: readonly LabeledQuery[], select: SelectFn): Promise<EvaluationReport> {
  const selections = new Map<string, readonly string[]>();
  // A line on a terminal only (bench/progress.ts); redrawn at most every 1% of the queries.
  const progress = new Progress(queries.length);
  const every = Math.max(1, Math.floor(queries.length / 100));
  for (const [i, q] of queries.entries()) {
    if (i % every === 0) progress.count(i, `selecting for query ${i + 1} of ${queries.length}`);
    selections.set(q.id, await select(q));
  }
  progress.end();
  return evaluateSelections(queries, selections);
}

function fmt(x: number | null): string {
  return x === null ? '   -  ' : x.toFixed(3).padStart(6);
}

function row(label: string, m: Metrics): string {
  return `${label.padEnd(16)} ${String(m.queries).padStart(4)}  ${fmt(m.top1)}  ${fmt(m.recallAtK)}  ${fmt(m.precision)}  ${fmt(m.selectedSubsetOfOk)}  ${fmt(m.noMatch)}`;
}

export function formatReport(title: string, report: EvaluationReport): string {
  const lines = [
    title,
    `${'slice'.padEnd(16)} ${'n'.padStart(4)}  ${'top-1'.padStart(6)}  ${'recall'.padStart(6)}  ${'prec'.padStart(6)}  ${'⊆OK'.padStart(6)}  ${'no-match'.padStart(6)}`,
    row('all', report.overall),
  ];
  for (const [tag, m] of Object.entries(report.byTag)) lines.push(row(tag, m));
  return lines.join('\n');
}

/**
 * Rank-1: the share of queries with a right agent whose best-ranked agent is one of the right or
 * acceptable ones, whatever the cut-off (minConfidence 0, one agent). Against top-1 it tells a
 * ranking miss (rank-1 misses too) from a cut-off miss (rank-1 hits, top-1 does not).
 */
export function rankOne(agents: readonly CatalogAgent[], queries: readonly LabeledQuery[]): number | null {
  const index = buildCatalogIndex(agents);
  const stats = new Map(agents.map((a) => [a.id, UNIFORM_STATS] as const));
  let hits = 0;
  let total = 0;
  for (const q of queries) {
    if (q.relevant.length === 0) continue;
    total += 1;
    const request = requestOf(q);
    const first = selectAgents(index, stats, {
      ...request,
      selectionCriteria: { ...request.selectionCriteria, minConfidence: 0, maxAgents: 1 },
    }).selected[0];
    if (first !== undefined && (q.relevant.includes(first.agent.id) || (q.acceptable ?? []).includes(first.agent.id))) hits += 1;
  }
  return total === 0 ? null : hits / total;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const arg = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const dataDir = arg('--data') ?? process.env['SELECTION_DATA_DIR'] ?? DEFAULT_DATA_DIR;
  const queriesFile = arg('--queries') ?? process.env['SELECTION_QUERIES'] ?? path.join(dataDir, 'queries.json');
  const examplesFile = arg('--examples') ?? path.join(dataDir, 'agent-examples.json');
  const { agents, queries } = loadDataset(dataDir, queriesFile);
  const examples = loadExamples(examplesFile);
  let missed = false;
  // Every metric twice: the catalog without examples, and with every agent's examples.
  for (const coverage of ['none', 'all'] as const) {
    const catalog = withExamples(agents, examples, coverage);
    const report = await runEvaluation(queries, inProcessSelect(catalog));
    const label = coverage === 'none' ? 'without examples' : 'with examples';
    console.log(formatReport(`\nSelection quality, ${label}: ${queriesFile} (${agents.length} agents)`, report));
    console.log(`rank-1 (right agent ranked first, any cut-off): ${rankOne(catalog, queries)?.toFixed(3) ?? '-'}`);
    reportMissesAndTargets(report, args.includes('--verbose'));
    missed ||= process.exitCode === 1;
  }
  if (missed) process.exitCode = 1;
}

/** Lists the misses (with --verbose) and sets a failing exit code when a target is missed. */
export function reportMissesAndTargets(report: Awaited<ReturnType<typeof runEvaluation>>, verbose: boolean): void {
  if (verbose) {
    console.log('\nmisses:');
    for (const o of report.outcomes) {
      const miss = o.noMatchQuery ? o.noMatchHit === false : o.top1Hit === false || o.subsetOfOk === false;
      if (miss) console.log(`  ${o.id} [${o.tags.join(',')}] selected=${JSON.stringify(o.selected)}`);
    }
  }
  const missed = missedTargets(report.overall);
  if (missed.length > 0) {
    console.error(`\nBelow target: ${missed.join('; ')}`);
    process.exitCode = 1;
  } else {
    console.log('\nAll targets met.');
  }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
