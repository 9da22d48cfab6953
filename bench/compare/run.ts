/**
 * `npm run bench:compare`: Baton against its peers in one run, on the same machine, driven by
 * the same closed loop (bench/compare/closed-loop.ts):
 *
 * - run-and-wait at C=50 (runs/s) and C=1 (p50 latency);
 * - workflow run + its event stream to the end, C=50 (runs/s);
 * - human in the loop: run → pause → approve → done, C=50 (runs/s).
 *
 * Systems: Baton embedded, Baton on Postgres + Redis (when DATABASE_URL and REDIS_URL are set),
 * Mastra and the LangGraph JS dev server (when `npm run bench:peers:install` has installed them).
 * Each repetition starts every system fresh, in alternating order; the server tree is pinned to
 * core 0 and this process (the load) to core 1 when `taskset` exists. Results are medians over
 * repetitions, written to bench/COMPARE.md.
 *
 * Options (environment): BENCH_DURATION seconds per measurement (default 5), BENCH_REPS
 * repetitions (default 2), BENCH_SYSTEMS comma list to restrict (embedded,real,baseline,mastra,
 * langgraph), BENCH_COMPARE_OUT results path, BENCH_BASELINE_ROOT (with `baseline` in the systems,
 * a built checkout of an earlier commit run embedded beside this one; BENCH_BASELINE_LABEL names it).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../../src/support/paths.js';
import { startBatonSystem } from './baton.js';
import { runClosedLoop, type FlowResult } from './closed-loop.js';
import { langGraphInstalled, mastraInstalled, startLangGraph, startMastra } from './peers.js';
import type { ComparedSystem } from './system.js';

type SystemKey = 'embedded' | 'real' | 'baseline' | 'mastra' | 'langgraph';

interface Scenario {
  readonly name: string;
  readonly flow: keyof ComparedSystem['flows'];
  readonly concurrency: number;
  /** What the table shows: throughput, or median latency for the C=1 scenario. */
  readonly metric: 'perSecond' | 'p50Ms';
}

const SCENARIOS: readonly Scenario[] = [
  { name: 'run-and-wait, C=50 (runs/s)', flow: 'runAndWait', concurrency: 50, metric: 'perSecond' },
  { name: 'run-and-wait, C=1 (p50 ms)', flow: 'runAndWait', concurrency: 1, metric: 'p50Ms' },
  { name: 'workflow run + stream to done, C=50 (runs/s)', flow: 'stream', concurrency: 50, metric: 'perSecond' },
  { name: 'HITL: run → pause → approve → done, C=50 (runs/s)', flow: 'hitl', concurrency: 50, metric: 'perSecond' },
];

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return os.cpus().length >= 2;
  } catch {
    return false;
  }
}

/** Every pid of a process tree (Linux /proc). */
function tree(pid: number): number[] {
  const out = [pid];
  try {
    for (const tid of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)) {
      if (tid !== '') out.push(...tree(Number(tid)));
    }
  } catch {
    // gone, or not Linux
  }
  return out;
}

function pin(pid: number, cpu: number): void {
  for (const p of tree(pid)) {
    try {
      execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(p)], { stdio: 'ignore' });
    } catch {
      // exited meanwhile
    }
  }
}

function median(values: readonly number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function progress(line: string): void {
  // Quiet in CI and when not on a terminal; a line per step otherwise.
  if (process.stderr.isTTY && !process.env.CI) process.stderr.write(`${line}\n`);
}

const STARTERS: Record<SystemKey, () => Promise<ComparedSystem>> = {
  embedded: () => startBatonSystem('embedded'),
  real: () => startBatonSystem('real'),
  // BENCH_BASELINE_ROOT: a built checkout of an earlier commit, embedded, for before/after in one run.
  baseline: () => startBatonSystem('embedded', { root: process.env.BENCH_BASELINE_ROOT!, label: process.env.BENCH_BASELINE_LABEL ?? path.basename(process.env.BENCH_BASELINE_ROOT!) }),
  mastra: startMastra,
  langgraph: startLangGraph,
};

export async function runCompare(): Promise<string> {
  const durationMs = Number(process.env.BENCH_DURATION ?? 5) * 1000;
  const reps = Number(process.env.BENCH_REPS ?? 2);
  const wanted = (process.env.BENCH_SYSTEMS ?? `embedded,real${process.env.BENCH_BASELINE_ROOT ? ',baseline' : ''},mastra,langgraph`).split(',') as SystemKey[];
  const notes: string[] = [];
  const available = wanted.filter((key) => {
    if (key === 'real' && !(process.env.DATABASE_URL && process.env.REDIS_URL)) return void notes.push('Baton on Postgres + Redis skipped: DATABASE_URL and REDIS_URL are not both set.'), false;
    if (key === 'baseline' && !process.env.BENCH_BASELINE_ROOT) return void notes.push('Baseline skipped: BENCH_BASELINE_ROOT is not set.'), false;
    if (key === 'mastra' && !mastraInstalled()) return void notes.push('Mastra skipped: not installed (npm run bench:peers:install).'), false;
    if (key === 'langgraph' && !langGraphInstalled()) return void notes.push('LangGraph skipped: not installed (npm run bench:peers:install).'), false;
    return true;
  });
  const pinning = hasTaskset();
  if (pinning) pin(process.pid, 1);
  else notes.push('Not pinned: taskset or a second core is missing, so load and server share cores.');

  const results = new Map<string, FlowResult[]>(); // `${system}|${scenario}`
  const names = new Map<SystemKey, string>();
  const systemNotes = new Map<SystemKey, string>();
  const loadStart = os.loadavg()[0]!;
  for (let rep = 0; rep < reps; rep += 1) {
    const order = rep % 2 === 0 ? available : [...available].reverse();
    for (const key of order) {
      progress(`rep ${rep + 1}/${reps}: starting ${key}`);
      let system: ComparedSystem;
      try {
        system = await STARTERS[key]();
      } catch (error) {
        notes.push(`${key}, repetition ${rep + 1}: did not start (${error instanceof Error ? error.message.slice(0, 300) : String(error)}).`);
        continue;
      }
      names.set(key, system.name);
      systemNotes.set(key, system.note);
      try {
        if (pinning) pin(system.pid, 0);
        for (const scenario of SCENARIOS) {
          const flow = system.flows[scenario.flow];
          // Warm-up: JIT, connection pools, first-run caches; not counted.
          await runClosedLoop(flow, scenario.concurrency, Math.min(1000, durationMs / 4));
          const result = await runClosedLoop(flow, scenario.concurrency, durationMs);
          progress(`  ${key} ${scenario.name}: ${result.perSecond.toFixed(1)}/s p50 ${result.p50Ms.toFixed(2)} ms, ${result.failed} failed`);
          const k = `${key}|${scenario.name}`;
          results.set(k, [...(results.get(k) ?? []), result]);
        }
      } finally {
        await system.stop();
      }
    }
  }

  const cell = (key: SystemKey, scenario: Scenario): string => {
    const runs = results.get(`${key}|${scenario.name}`);
    if (runs === undefined) return '—';
    const value = median(runs.map((r) => r[scenario.metric]));
    const failed = runs.reduce((n, r) => n + r.failed, 0);
    return `${value.toFixed(scenario.metric === 'p50Ms' ? 2 : 0)}${failed > 0 ? ` (${failed} failed)` : ''}`;
  };
  const ratio = (key: SystemKey, scenario: Scenario): string => {
    const mine = results.get(`${key}|${scenario.name}`);
    const theirs = results.get(`mastra|${scenario.name}`);
    if (mine === undefined || theirs === undefined) return '—';
    const a = median(mine.map((r) => r[scenario.metric]));
    const b = median(theirs.map((r) => r[scenario.metric]));
    // Higher is better for throughput; for latency the ratio is theirs over ours, so > 1 still means Baton is ahead.
    return `${(scenario.metric === 'perSecond' ? a / b : b / a).toFixed(2)}×`;
  };
  const batons = available.filter((k) => k === 'embedded' || k === 'real' || k === 'baseline');
  const header = ['scenario', ...available.map((k) => names.get(k) ?? k), ...batons.map((k) => `${names.get(k) ?? k} ÷ Mastra`)];
  const lines = [
    '# Baton against its peers',
    '',
    `${new Date().toISOString()} · ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'} · node ${process.version} · ` +
      `${reps} repetition(s) of ${durationMs / 1000} s per measurement (medians) · load average ${loadStart.toFixed(2)} at start · ` +
      (pinning ? 'server on core 0, load on core 1' : 'not pinned'),
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...SCENARIOS.map((s) => `| ${[s.name, ...available.map((k) => cell(k, s)), ...batons.map((k) => ratio(k, s))].join(' | ')} |`),
    '',
    'Ratios above 1× mean Baton is ahead (for the C=1 latency row: Mastra\'s p50 over Baton\'s).',
    'Every Baton run calls a real HTTP agent (and the HITL run a real HTTP tool) on this machine; the peers run their steps as functions in their own process.',
    '',
    ...[...systemNotes].map(([k, note]) => `- ${names.get(k) ?? k}: ${note}`),
    ...notes.map((n) => `- ${n}`),
    '',
  ];
  const markdown = lines.join('\n');
  const out = process.env.BENCH_COMPARE_OUT ?? path.join(packageRoot, 'bench', 'COMPARE.md');
  writeFileSync(out, markdown);
  process.stdout.write(`${markdown}\nwritten to ${path.relative(process.cwd(), out)}\n`);
  return markdown;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runCompare().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(`bench:compare failed: ${error instanceof Error ? error.stack : String(error)}`);
      process.exit(1);
    },
  );
}
