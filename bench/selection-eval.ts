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
import { packageRoot } from '../src/paths.js';
import { Progress } from './progress.js';
import {
  buildCatalogIndex,
  evaluateSelections,
  missedTargets,
  selectAgents,
} from '../src/selection/index.js';
import type { AgentRuntimeStats, CatalogAgent, EvaluationReport, LabeledQuery, Metrics, SelectionRequest } from '../src/selection/index.js';

export type SelectFn = (query: LabeledQuery) => Promise<readonly string[]>;

export interface Dataset {
  readonly agents: readonly CatalogAgent[];
  readonly queries: readonly LabeledQuery[];
}

export const DEFAULT_DATA_DIR = path.join(packageRoot, '..', 'shared', 'data', 'selection');

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

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const arg = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const dataDir = arg('--data') ?? process.env['SELECTION_DATA_DIR'] ?? DEFAULT_DATA_DIR;
  const queriesFile = arg('--queries') ?? process.env['SELECTION_QUERIES'] ?? path.join(dataDir, 'queries.json');
  const { agents, queries } = loadDataset(dataDir, queriesFile);
  const select = inProcessSelect(agents);

  const report = await runEvaluation(queries, select);
  console.log(formatReport(`Selection quality: ${queriesFile} (${agents.length} agents)`, report));
  reportMissesAndTargets(report, args.includes('--verbose'));
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
