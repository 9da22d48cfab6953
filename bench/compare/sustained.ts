/**
 * `npm run bench:sustained`: what a high-volume consumer gets from one Baton worker when it sends
 * at a fixed rate (open loop), whatever the answers, and what the worker costs in memory.
 *
 * For each mode (embedded; Postgres + Redis when DATABASE_URL and REDIS_URL are set):
 * - start-up: milliseconds from spawning `baton serve` to listening, and the worker's RSS idle;
 * - sustained rate: the highest offered rate (executions/s, a zero-latency agent) at which every
 *   submission is accepted (≤ 1% refused), every accepted execution completes, and the backlog
 *   drains within 2 s of the last submission. Found by doubling from 100/s, then bisecting;
 * - overload: 5 × that rate for the same time: how many were accepted, refused with 503, and
 *   (the number that must be zero) accepted and then failed or left unfinished;
 * - RSS after all of that (the executions completed are counted), and per idle SSE subscriber
 *   (BENCH_SSE_SUBSCRIBERS streams of a run paused on an approval).
 *
 * The server runs on core 0 and this process on core 1 when `taskset` exists. Results go to
 * bench/SUSTAINED.md. Options: BENCH_DURATION seconds per step (default 5), BENCH_SYSTEMS
 * (embedded,real), BENCH_SSE_SUBSCRIBERS (default 500), BENCH_SUSTAINED_OUT, BENCH_BASELINE_ROOT
 * (a built checkout of an earlier commit, also measured embedded; BENCH_BASELINE_LABEL names it).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { packageRoot } from '../../src/support/paths.js';
import { startMockAgentFleet } from '../mock-agent-fleet.js';
import { startBaton, type Baton } from '../run.js';
import type { BenchMode } from '../scenarios.js';

const CAPABILITY = 'bench-sustained';
const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);
const DRAIN_LIMIT_MS = 2_000;
const MAX_REFUSED_SHARE = 0.01;
/** After the last submission, how long accepted executions get to finish before counting as unfinished. */
const FINISH_WAIT_MS = 60_000;

export interface OpenLoopResult {
  readonly offeredPerSecond: number;
  readonly sent: number;
  readonly accepted: number;
  readonly refused: number;
  /** Refusals by the `reason` Baton gave (backlog, saturated, event_loop_delay, …). */
  readonly refusedBy: Readonly<Record<string, number>>;
  /** Neither 202 nor a refusal (a 5xx other than 503, a dropped connection). */
  readonly errors: number;
  readonly completed: number;
  /** Accepted, then FAILED or CANCELLED: the number that must be zero. */
  readonly failedAfterAccept: number;
  readonly unfinished: number;
  /** From the last submission to the last completion; null when nothing completed. */
  readonly drainMs: number | null;
  /** Completions during the sending window, per second. */
  readonly completedPerSecondDuringLoad: number;
}

interface Target {
  readonly pool: Pool;
  readonly headers: Record<string, string>;
}

function rssKiB(pid: number): number {
  // The worker is a child of the primary: sum the tree.
  const pids = [pid];
  for (let i = 0; i < pids.length; i++) {
    try {
      for (const child of readFileSync(`/proc/${pids[i]}/task/${pids[i]}/children`, 'utf8').trim().split(/\s+/)) if (child !== '') pids.push(Number(child));
    } catch {
      // gone
    }
  }
  return pids.reduce((sum, p) => {
    try {
      return sum + Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      return sum;
    }
  }, 0);
}

function pin(pid: number, cpu: number): void {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
    for (const child of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)) if (child !== '') pin(Number(child), cpu);
  } catch {
    // no taskset, or exited
  }
}

async function call(target: Target, method: 'GET' | 'POST', pathname: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await target.pool.request({
    method,
    path: pathname,
    headers: { ...target.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** Sends `rate` submissions per second for `durationMs` without waiting for answers, then waits for every accepted one. */
export async function openLoop(target: Target, rate: number, durationMs: number): Promise<OpenLoopResult> {
  const accepted: string[] = [];
  let refused = 0;
  const refusedBy: Record<string, number> = {};
  let errors = 0;
  const inFlight: Promise<void>[] = [];
  const body = { query: 'bench sustained', selectionCriteria: { requiredCapabilities: [CAPABILITY], minConfidence: 0, maxAgents: 1 } };
  const started = Date.now();
  let sent = 0;
  // Ticks of 10 ms, each sending what the schedule owes by then: the rate holds whatever the answers do.
  while (Date.now() - started < durationMs) {
    const due = Math.floor(((Date.now() - started) / 1000) * rate);
    for (; sent < due; sent++) {
      inFlight.push(
        call(target, 'POST', '/v1/orchestrate', body).then(
          ({ status, json }) => {
            if (status === 202) accepted.push(String(json.executionId));
            else if (status === 503 || status === 429) {
              refused++;
              const reason = String(json.reason ?? json.code ?? status);
              refusedBy[reason] = (refusedBy[reason] ?? 0) + 1;
            }
            else errors++;
          },
          () => void errors++,
        ),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const sendingEnded = Date.now();
  await Promise.all(inFlight);

  let completed = 0;
  let failedAfterAccept = 0;
  let unfinished = 0;
  let lastCompletion = 0;
  let completedDuringLoad = 0;
  const deadline = Date.now() + FINISH_WAIT_MS;
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < accepted.length) {
      const id = accepted[next++]!;
      for (;;) {
        const left = deadline - Date.now();
        if (left <= 0) {
          unfinished++;
          break;
        }
        const { status, json } = await call(target, 'GET', `/v1/executions/${id}?wait=${Math.min(left, 30_000)}`).catch(() => ({ status: 0, json: {} as Record<string, unknown> }));
        if (status === 200 && TERMINAL.has(String(json.status))) {
          const at = Date.parse(String(json.completedAt ?? ''));
          if (Number.isFinite(at)) {
            lastCompletion = Math.max(lastCompletion, at);
            if (at <= sendingEnded) completedDuringLoad++;
          }
          if (json.status === 'COMPLETED') completed++;
          else failedAfterAccept++;
          break;
        }
        if (status !== 200 && status !== 503) await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };
  await Promise.all(Array.from({ length: 64 }, lane));
  return {
    offeredPerSecond: rate,
    sent,
    accepted: accepted.length,
    refused,
    refusedBy,
    errors,
    completed,
    failedAfterAccept,
    unfinished,
    drainMs: lastCompletion === 0 ? null : Math.max(0, lastCompletion - sendingEnded),
    completedPerSecondDuringLoad: completedDuringLoad / ((sendingEnded - started) / 1000),
  };
}

function sustains(r: OpenLoopResult): boolean {
  return (
    r.failedAfterAccept === 0 &&
    r.unfinished === 0 &&
    r.errors === 0 &&
    r.refused <= r.sent * MAX_REFUSED_SHARE &&
    r.drainMs !== null &&
    r.drainMs <= DRAIN_LIMIT_MS
  );
}

interface ModeReport {
  readonly mode: BenchMode;
  /** Column title: the mode, and the baseline's label when it is one. */
  readonly label: string;
  readonly readyMs: number;
  readonly idleRssKiB: number;
  readonly steps: OpenLoopResult[];
  readonly sustained: number;
  readonly overload: OpenLoopResult | null;
  readonly executions: number;
  readonly afterRssKiB: number;
  readonly sseKiBPerSubscriber: number | null;
  readonly sseSubscribers: number;
}

async function setUp(baton: Baton): Promise<{ target: Target; agentUrl: string }> {
  const fleet = await startMockAgentFleet([
    {
      record: false,
      info: { id: 'bench-sustained-agent', name: 'Bench sustained agent', description: 'Answers at once', capabilities: [CAPABILITY], pricing: { model: 'per_execution', basePrice: 0.001 } },
      output: (request) => {
        const context = (request.body as { input?: { context?: { tools?: unknown[]; toolResults?: unknown[] } } } | undefined)?.input?.context;
        const offered = (context?.tools?.length ?? 0) > 0;
        const ran = (context?.toolResults?.length ?? 0) > 0;
        return offered && !ran ? { toolCalls: [{ id: 'call-1', name: 'approve_payment', input: { amount: 1 } }] } : { answer: 'done' };
      },
    },
  ]);
  baton.ctx.defer(() => fleet.close());
  const agent = fleet.agent(0);
  const target: Target = { pool: new Pool(baton.url, { connections: 512, pipelining: 1 }), headers: { authorization: `Bearer ${baton.ctx.key}` } };
  baton.ctx.defer(() => target.pool.close());
  const registered = await call(target, 'POST', '/v1/agents', {
    id: agent.info.id,
    name: agent.info.name,
    description: agent.info.description,
    url: agent.url,
    vertical: 'bench',
    capabilities: agent.info.capabilities,
    pricing: agent.info.pricing,
    maxConcurrency: 1000,
  });
  if (registered.status !== 201) throw new Error(`agent registration: ${registered.status} ${JSON.stringify(registered.json)}`);
  return { target, agentUrl: agent.url };
}

/** RSS added per idle SSE subscriber: `count` streams of one run paused on an approval. */
async function sseCost(baton: Baton, target: Target, agentUrl: string, count: number): Promise<number | null> {
  const made = await call(target, 'POST', '/v1/workflows', {
    slug: 'bench-sse',
    name: 'Bench SSE',
    steps: [{ id: 'pay', agent: 'bench-sustained-agent', tools: [{ name: 'approve_payment', url: `${agentUrl}/execute`, risk: 'high' }] }],
  });
  if (made.status !== 201) return null;
  const run = await call(target, 'POST', '/v1/workflows/bench-sse/run', { task: 'bench' });
  const streamPath = new URL(String(run.json.stream_url), baton.url).pathname;
  const streams = new Pool(baton.url, { connections: count + 8, pipelining: 1 });
  const before = rssKiB(baton.pid);
  const opened = await Promise.all(
    Array.from({ length: count }, () =>
      streams.request({ method: 'GET', path: streamPath, headers: { ...target.headers, accept: 'text/event-stream' } }).then((res) => {
        res.body.on('data', () => undefined);
        return res;
      }),
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const after = rssKiB(baton.pid);
  for (const res of opened) res.body.destroy();
  await streams.destroy();
  return (after - before) / count;
}

async function measureMode(
  mode: BenchMode,
  durationMs: number,
  sseSubscribers: number,
  progress: (line: string) => void,
  baseline?: { readonly root: string; readonly label: string },
): Promise<ModeReport> {
  const label = `${mode === 'embedded' ? 'embedded' : 'Postgres + Redis'}${baseline === undefined ? '' : ` @ ${baseline.label}`}`;
  const t0 = Date.now();
  const baton = await startBaton(mode, baseline?.root);
  const readyMs = Date.now() - t0;
  pin(baton.pid, 0);
  try {
    const { target, agentUrl } = await setUp(baton);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const idleRssKiB = rssKiB(baton.pid);
    const steps: OpenLoopResult[] = [];
    const step = async (rate: number): Promise<boolean> => {
      const r = await openLoop(target, rate, durationMs);
      steps.push(r);
      progress(`  ${mode} ${rate}/s: accepted ${r.accepted}, refused ${r.refused}, completed ${r.completed}, failed ${r.failedAfterAccept}, unfinished ${r.unfinished}, drain ${r.drainMs} ms`);
      return sustains(r);
    };
    let good = 0;
    let bad = 0;
    for (let rate = 100; rate <= 12_800; rate *= 2) {
      if (await step(rate)) good = rate;
      else {
        bad = rate;
        break;
      }
    }
    // Bisect twice between the last rate sustained and the first that was not.
    for (let i = 0; i < 2 && bad > 0 && bad - good > good / 8; i++) {
      const mid = Math.round((good + bad) / 2);
      if (await step(mid)) good = mid;
      else bad = mid;
    }
    const overloadRate = Math.max(good, 50) * 5;
    const overload = await openLoop(target, overloadRate, durationMs);
    progress(`  ${mode} overload ${overloadRate}/s: accepted ${overload.accepted}, refused ${overload.refused}, failed ${overload.failedAfterAccept}, unfinished ${overload.unfinished}`);
    const executions = [...steps, overload].reduce((n, r) => n + r.accepted, 0);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const afterRssKiB = rssKiB(baton.pid);
    const sse = await sseCost(baton, target, agentUrl, sseSubscribers).catch(() => null);
    return { mode, label, readyMs, idleRssKiB, steps, sustained: good, overload, executions, afterRssKiB, sseKiBPerSubscriber: sse, sseSubscribers };
  } finally {
    await baton.stop();
  }
}

function report(reports: readonly ModeReport[], durationMs: number, notes: readonly string[]): string {
  const mib = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`;
  const lines = [
    '# Sustained rate, overload and memory (one worker)',
    '',
    `${new Date().toISOString()} · ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'} · node ${process.version} · ${durationMs / 1000} s per step · load average ${os.loadavg()[0]!.toFixed(2)} at the end · server pinned to core 0 when taskset exists`,
    '',
    '| | ' + reports.map((r) => r.label).join(' | ') + ' |',
    '|---|' + reports.map(() => '---').join('|') + '|',
    `| ready after spawn | ${reports.map((r) => `${r.readyMs} ms`).join(' | ')} |`,
    `| RSS idle | ${reports.map((r) => mib(r.idleRssKiB)).join(' | ')} |`,
    `| sustained rate (every accepted completes, drained ≤ 2 s) | ${reports.map((r) => `${r.sustained}/s`).join(' | ')} |`,
    `| overload at 5×: accepted / refused 503 / accepted then failed / unfinished | ${reports.map((r) => (r.overload === null ? '—' : `${r.overload.accepted} / ${r.overload.refused} / ${r.overload.failedAfterAccept} / ${r.overload.unfinished}`)).join(' | ')} |`,
    `| completions per second during the overload | ${reports.map((r) => (r.overload === null ? '—' : r.overload.completedPerSecondDuringLoad.toFixed(0))).join(' | ')} |`,
    `| RSS after (executions accepted in the run) | ${reports.map((r) => `${mib(r.afterRssKiB)} (${r.executions})`).join(' | ')} |`,
    `| RSS per idle SSE subscriber | ${reports.map((r) => (r.sseKiBPerSubscriber === null ? '—' : `${r.sseKiBPerSubscriber.toFixed(1)} KiB (${r.sseSubscribers} streams)`)).join(' | ')} |`,
    '',
    '## Steps',
    '',
    '| mode | offered/s | sent | accepted | refused (by reason) | errors | completed | accepted then failed | unfinished | drain ms | completed/s during load |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...reports.flatMap((r) =>
      [...r.steps, ...(r.overload === null ? [] : [r.overload])].map(
        (s) =>
          `| ${r.label} | ${s.offeredPerSecond} | ${s.sent} | ${s.accepted} | ${s.refused}${s.refused > 0 ? ` (${Object.entries(s.refusedBy).map(([k, v]) => `${k} ${v}`).join(', ')})` : ''} | ${s.errors} | ${s.completed} | ${s.failedAfterAccept} | ${s.unfinished} | ${s.drainMs ?? '—'} | ${s.completedPerSecondDuringLoad.toFixed(0)} |`,
      ),
    ),
    '',
    ...notes.map((n) => `- ${n}`),
    '',
  ];
  return lines.join('\n');
}

export async function runSustained(): Promise<string> {
  const durationMs = Number(process.env.BENCH_DURATION ?? 5) * 1000;
  const sseSubscribers = Number(process.env.BENCH_SSE_SUBSCRIBERS ?? 500);
  const wanted = (process.env.BENCH_SYSTEMS ?? 'embedded,real').split(',').filter((m) => m === 'embedded' || m === 'real') as BenchMode[];
  const notes: string[] = [];
  const modes = wanted.filter((m) => {
    if (m === 'real' && !(process.env.DATABASE_URL && process.env.REDIS_URL)) return void notes.push('Postgres + Redis skipped: DATABASE_URL and REDIS_URL are not both set.'), false;
    return true;
  });
  try {
    execFileSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
  } catch {
    notes.push('Not pinned: taskset is missing, so load and server share cores.');
  }
  const progress = (line: string): void => {
    if (process.stderr.isTTY && !process.env.CI) process.stderr.write(`${line}\n`);
  };
  const reports: ModeReport[] = [];
  for (const mode of modes) reports.push(await measureMode(mode, durationMs, sseSubscribers, progress));
  // BENCH_BASELINE_ROOT: a built checkout of an earlier commit, measured embedded in the same run.
  const root = process.env.BENCH_BASELINE_ROOT;
  if (root !== undefined && root !== '') {
    reports.push(await measureMode('embedded', durationMs, sseSubscribers, progress, { root, label: process.env.BENCH_BASELINE_LABEL ?? path.basename(root) }));
  }
  const markdown = report(reports, durationMs, notes);
  const out = process.env.BENCH_SUSTAINED_OUT ?? path.join(packageRoot, 'bench', 'SUSTAINED.md');
  writeFileSync(out, markdown);
  process.stdout.write(`${markdown}\nwritten to ${path.relative(process.cwd(), out)}\n`);
  return markdown;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runSustained().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(`bench:sustained failed: ${error instanceof Error ? error.stack : String(error)}`);
      process.exit(1);
    },
  );
}
