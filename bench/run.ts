/**
 * `npm run bench` / `baton bench`: measures Baton's hot paths against a raw uWebSockets.js
 * hello world started in the same run, and writes bench/RESULTS.md.
 *
 * Order: pick the load generator (wrk, else autocannon); start the baseline and measure it,
 * checking from the server's CPU time that the generator, not the server, was not the limit;
 * then for embedded mode (always) and real Redis/Postgres (when DATABASE_URL and REDIS_URL are
 * set) start Baton with one worker and run every registered HTTP scenario; then the in-process
 * scenarios. Only 127.0.0.1; about 5 s per scenario.
 *
 * Options (environment): BENCH_DURATION seconds per scenario (default 5), BENCH_CONNECTIONS
 * (default 64), BENCH_LOAD=autocannon to force the fallback generator, BENCH_OUT results path.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { packageRoot } from '../src/paths.js';
import { pickLoadGenerator, type LoadGenerator, type LoadResult } from './load.js';
import { scenarios, type BenchMode, type HttpContext, type InProcessResult } from './scenarios.js';

const ADMIN_TOKEN = `bench-operator-${randomBytes(8).toString('hex')}`;

interface HttpRow {
  readonly scenario: string;
  readonly description: string;
  readonly mode: BenchMode | 'baseline';
  readonly result: LoadResult;
  /** Share of one core the server process tree used during the run (1 = one full core). */
  readonly serverCpu: number | null;
}

interface InProcessRow {
  readonly scenario: string;
  readonly description: string;
  readonly result: InProcessResult | null;
  readonly skipped: string | null;
}

export interface BenchOptions {
  readonly durationSeconds?: number;
  readonly connections?: number;
  readonly out?: string;
}

// ---------------------------------------------------------------- progress

class Progress {
  private label = '';
  private started = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly tty = process.stderr.isTTY === true;

  constructor(private readonly total: number, private done = 0) {
    this.timer = setInterval(() => this.draw(), 250);
    this.timer.unref();
  }

  step(label: string): void {
    if (this.label !== '') this.done++;
    this.label = label;
    this.started = Date.now();
    if (!this.tty) process.stderr.write(`[${this.done + 1}/${this.total}] ${label}\n`);
    this.draw();
  }

  note(text: string): void {
    if (this.tty) process.stderr.write('\r\x1b[K');
    process.stderr.write(`${text}\n`);
    this.draw();
  }

  private draw(): void {
    if (!this.tty || this.label === '') return;
    const seconds = ((Date.now() - this.started) / 1000).toFixed(1);
    process.stderr.write(`\r\x1b[K[${Math.min(this.done + 1, this.total)}/${this.total}] ${this.label} ${seconds}s`);
  }

  end(): void {
    clearInterval(this.timer);
    if (this.tty) process.stderr.write('\r\x1b[K');
  }
}

// ---------------------------------------------------------------- processes

const compiled = fileURLToPath(import.meta.url).endsWith('.js');

/** argv to run one of our entry points, from dist/ when compiled, through tsx otherwise. */
function entry(tsPath: string): string[] {
  if (compiled) return [path.join(packageRoot, 'dist', tsPath.replace(/\.ts$/, '.js'))];
  return ['--import', 'tsx', path.join(packageRoot, tsPath)];
}

interface Started {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly match: RegExpExecArray;
}

function startUntil(args: string[], env: NodeJS.ProcessEnv, ready: RegExp, timeoutMs = 60_000): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, cwd: packageRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`did not start within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const match = ready.exec(out);
      if (match !== null) {
        clearTimeout(timer);
        resolve({ child, output: () => out, match });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before it was ready:\n${out}`));
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** CPU seconds used so far by a process and its descendants (Linux /proc; null elsewhere). */
function cpuSeconds(pid: number): number | null {
  try {
    const ticksPerSecond = 100; // USER_HZ: 100 on every Linux architecture Node supports
    let total = 0;
    const visit = (p: number): void => {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / ticksPerSecond; // utime, stime
      for (const child of readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim().split(/\s+/)) {
        if (child !== '') visit(Number(child));
      }
    };
    visit(pid);
    return total;
  } catch {
    return null;
  }
}

async function measure(load: LoadGenerator, pid: number, url: string, headers: Record<string, string>, options: Required<BenchOptions>) {
  const cpuBefore = cpuSeconds(pid);
  const t0 = performance.now();
  const result = await load.run({ url, headers, connections: options.connections, durationSeconds: options.durationSeconds });
  const elapsed = (performance.now() - t0) / 1000;
  const cpuAfter = cpuSeconds(pid);
  const serverCpu = cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / elapsed;
  return { result, serverCpu };
}

// ---------------------------------------------------------------- Baton under test

interface Baton {
  readonly url: string;
  readonly pid: number;
  readonly ctx: HttpContext;
  stop(): Promise<void>;
}

async function adminPost(url: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 201) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function startBaton(mode: BenchMode): Promise<Baton> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BATON_PORT: '0',
    BATON_HOST: '127.0.0.1',
    BATON_ADMIN_TOKEN: ADMIN_TOKEN,
    BATON_LOG_LEVEL: 'info',
    BATON_WORKERS: '1',
  };
  delete env.BATON_STATSD;
  let dataDir: string | null = null;
  let schema: string | null = null;
  let prefix: string | null = null;
  if (mode === 'embedded') {
    delete env.DATABASE_URL;
    delete env.REDIS_URL;
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'baton-bench-'));
    env.BATON_DATA_DIR = dataDir;
  } else {
    schema = `bench_${randomBytes(4).toString('hex')}`;
    prefix = `baton-bench:${randomBytes(4).toString('hex')}:`;
    env.BATON_DB_SCHEMA = schema;
    env.BATON_REDIS_PREFIX = prefix;
  }
  const started = await startUntil([...entry('src/cli/main.ts'), 'serve'], env, /baton listening on (http:\/\/[\d.]+:\d+)/);
  const url = started.match[1]!;
  const account = await adminPost(`${url}/v1/accounts`, {
    name: 'bench',
    tier: 'ENTERPRISE',
    // Far above what a 5 s run can send, so every scenario measures the admitted path.
    limits: { requestsPerMinute: 10_000_000, requestsPerDay: 10_000_000_000 },
  });
  const key = await adminPost(`${url}/v1/api-keys`, { name: 'bench', permissions: ['*'], accountId: account.id });
  // The worker is the primary's child; measure the whole tree.
  return {
    url,
    pid: started.child.pid!,
    ctx: { baseUrl: url, key: key.key as string, keyId: key.id as string },
    async stop() {
      await stopChild(started.child);
      if (dataDir !== null) rmSync(dataDir, { recursive: true, force: true });
      if (schema !== null && process.env.DATABASE_URL) {
        const sql = postgres(process.env.DATABASE_URL, { max: 1, onnotice: () => undefined });
        await sql.unsafe(`drop schema if exists "${schema}" cascade`);
        await sql.end({ timeout: 5 });
      }
      if (prefix !== null && process.env.REDIS_URL) await deleteRedisPrefix(process.env.REDIS_URL, prefix);
    },
  };
}

async function deleteRedisPrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (found.length > 0) await redis.del(...found);
  } while (cursor !== '0');
  redis.disconnect();
}

// ---------------------------------------------------------------- machine and versions

function packageVersion(name: string): string {
  try {
    const pkg = JSON.parse(readFileSync(path.join(packageRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
    return pkg.version;
  } catch {
    return 'not installed';
  }
}

async function serverVersions(): Promise<{ redis: string | null; postgres: string | null }> {
  let redisVersion: string | null = null;
  let pgVersion: string | null = null;
  if (process.env.REDIS_URL) {
    const redis = new Redis(process.env.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      redisVersion = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? null;
    } catch {
      redisVersion = null;
    } finally {
      redis.disconnect();
    }
  }
  if (process.env.DATABASE_URL) {
    const sql = postgres(process.env.DATABASE_URL, { max: 1, onnotice: () => undefined });
    try {
      const [row] = await sql<{ server_version: string }[]>`show server_version`;
      pgVersion = row?.server_version ?? null;
    } catch {
      pgVersion = null;
    } finally {
      await sql.end({ timeout: 5 });
    }
  }
  return { redis: redisVersion, postgres: pgVersion };
}

// ---------------------------------------------------------------- report

const fmt = (n: number, digits = 0): string =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a';
const pct = (n: number | null): string => (n === null || !Number.isFinite(n) ? 'n/a' : `${Math.round(n * 100)}%`);

function report(
  load: LoadGenerator,
  options: Required<BenchOptions>,
  baseline: HttpRow,
  http: readonly HttpRow[],
  inProcess: readonly InProcessRow[],
  versions: { redis: string | null; postgres: string | null },
  notes: readonly string[],
  loadAtStart: readonly number[],
): string {
  const cpus = os.cpus();
  const base = baseline.result.requestsPerSecond;
  const serverBound = baseline.serverCpu !== null && baseline.serverCpu >= 0.9;
  const lines: string[] = [];
  lines.push('# Bench results', '');
  lines.push(`Generated by \`npm run bench\` (bench/run.ts) on ${new Date().toISOString()}. Regenerate rather than edit.`, '');
  lines.push('## Machine', '');
  lines.push('| CPU | cores | memory | OS | Node | load average at start (1/5/15 min) |', '|---|---|---|---|---|---|');
  lines.push(
    `| ${cpus[0]?.model ?? 'unknown'} | ${cpus.length} | ${fmt(os.totalmem() / 2 ** 30, 1)} GiB | ${os.type()} ${os.release()} | ${process.version} | ` +
      `${loadAtStart.map((n) => n.toFixed(2)).join(' / ')} |`,
    '',
  );
  lines.push('## Versions', '');
  const pkgs = ['uWebSockets.js', 'ioredis', 'postgres', '@electric-sql/pglite', 'nact', 'hot-shots', 'autocannon'];
  const own = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string };
  lines.push(`- baton ${own.version}`);
  for (const name of pkgs) lines.push(`- ${name} ${packageVersion(name)}`);
  lines.push(`- Redis server ${versions.redis ?? '(not used: REDIS_URL unset)'}`);
  lines.push(`- PostgreSQL server ${versions.postgres ?? '(not used: DATABASE_URL unset)'}`);
  lines.push(`- load generator: ${load.name} ${load.version}`, '');
  lines.push('## Method', '');
  lines.push(
    `Each HTTP scenario: ${load.name}${load.name === 'wrk' ? ' (1 thread)' : ''}, ${options.connections} keep-alive connections, ` +
      `${options.durationSeconds} s, 127.0.0.1 only, against Baton with one worker (\`BATON_WORKERS=1\`), ` +
      'authenticated with an ENTERPRISE key whose limits a run cannot reach (so every request takes the admitted path, ' +
      'including its rate-limit check). "vs baseline" is req/s divided by the raw uWebSockets.js hello world ' +
      '(bench/baseline-server.ts) measured in the same run. "server CPU" is the CPU time of the server process tree ' +
      'over the run (1 core = 100%).',
    '',
  );
  lines.push('### Is the load generator the bottleneck?', '');
  lines.push(
    serverBound
      ? `No: the baseline server used ${pct(baseline.serverCpu)} of a core while ${load.name} drove it, so the server was saturated, not the generator.`
      : `Yes, for the baseline: the uWS server used only ${pct(baseline.serverCpu)} of a core during its run, so ${load.name} ` +
          '(or cores shared with it and with other processes) capped the baseline below what uWS can serve. The true baseline is ' +
          'higher, so the ratios below are upper bounds. Baton rows whose server CPU is near 100% were server-bound and are measured correctly.',
    '',
  );
  lines.push('## HTTP hot paths', '');
  lines.push('| scenario | mode | req/s | p50 ms | p99 ms | vs baseline | server CPU | non-2xx/errors |', '|---|---|---|---|---|---|---|---|');
  for (const row of [baseline, ...http]) {
    lines.push(
      `| ${row.scenario} | ${row.mode} | ${fmt(row.result.requestsPerSecond)} | ${fmt(row.result.p50Ms, 2)} | ${fmt(row.result.p99Ms, 2)} | ` +
        `${row.mode === 'baseline' ? '1.00' : fmt(row.result.requestsPerSecond / base, 2)} | ${pct(row.serverCpu)} | ${row.result.errors} |`,
    );
  }
  lines.push('', 'Descriptions:', '');
  for (const row of http.filter((r, i, all) => all.findIndex((o) => o.scenario === r.scenario) === i)) lines.push(`- ${row.scenario}: ${row.description}`);
  lines.push('', '## Rate-limit check alone (in-process)', '');
  lines.push(
    'A closed loop of 64 concurrent checks for 1,000 accounts, in the bench process. "vs baseline" compares checks/s with the baseline\'s req/s: ' +
      'how much of an HTTP hot path\'s budget the check would take.',
    '',
  );
  lines.push('| scenario | checks/s | p50 ms | p99 ms | vs baseline |', '|---|---|---|---|---|');
  for (const row of inProcess) {
    if (row.result === null) lines.push(`| ${row.scenario} | skipped: ${row.skipped} | | | |`);
    else lines.push(`| ${row.scenario} | ${fmt(row.result.opsPerSecond)} | ${fmt(row.result.p50Ms, 3)} | ${fmt(row.result.p99Ms, 3)} | ${fmt(row.result.opsPerSecond / base, 2)} |`);
  }
  lines.push('', 'Descriptions:', '');
  for (const row of inProcess) lines.push(`- ${row.scenario}: ${row.description}`);
  lines.push('', '## Targets (issue 5)', '');
  const read = http.find((r) => r.scenario === 'authenticated-read' && r.mode === 'embedded');
  const readReal = http.find((r) => r.scenario === 'authenticated-read' && r.mode === 'real');
  lines.push(
    `- Authenticated read ≥ 50% of the baseline on one worker: embedded ${read === undefined ? 'n/a' : pct(read.result.requestsPerSecond / base)}` +
      `${readReal === undefined ? '' : `, real ${pct(readReal.result.requestsPerSecond / base)}`} (GET /v1/api-keys stands in for the execution status read until executions exist).`,
    '- Orchestrate accepted ≥ 10,000/s and p99 added latency ≤ 2 ms at half of peak load: not measured yet (orchestration is not built; register an `orchestrate` scenario in bench/scenarios.ts).',
  );
  if (notes.length > 0) lines.push('', '## Notes', '', ...notes.map((n) => `- ${n}`));
  lines.push('');
  return lines.join('\n');
}

// ---------------------------------------------------------------- main

export async function runBench(input: BenchOptions = {}): Promise<string> {
  const options: Required<BenchOptions> = {
    durationSeconds: input.durationSeconds ?? Number(process.env.BENCH_DURATION ?? 5),
    connections: input.connections ?? Number(process.env.BENCH_CONNECTIONS ?? 64),
    out: input.out ?? process.env.BENCH_OUT ?? path.join(packageRoot, 'bench', 'RESULTS.md'),
  };
  // Other processes competing for the cores skew every number; the report says how busy it was.
  const loadAtStart = os.loadavg();
  const load = pickLoadGenerator(process.env.BENCH_LOAD);
  if (load === null) throw new Error('no load generator: install wrk (apt-get install wrk) or run npm install for autocannon');
  const real = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
  const modes: BenchMode[] = real ? ['embedded', 'real'] : ['embedded'];
  const httpScenarios = scenarios().filter((s) => s.kind === 'http');
  const inProcessScenarios = scenarios().filter((s) => s.kind === 'inprocess');
  const total = 1 + modes.reduce((n, m) => n + httpScenarios.filter((s) => s.modes.includes(m)).length, 0) + inProcessScenarios.length;
  const progress = new Progress(total);
  const notes: string[] = [];
  if (!real) notes.push('Real Redis/Postgres scenarios skipped: DATABASE_URL and REDIS_URL were not both set.');
  if (load.name !== 'wrk') notes.push('wrk was not found, so autocannon (Node) generated the load; it needs more CPU per request than wrk, which on a small machine competes with the server.');

  progress.note(`bench: ${load.name} ${load.version}, ${options.connections} connections, ${options.durationSeconds} s per scenario, modes: ${modes.join(', ')}`);
  const http: HttpRow[] = [];
  const baselineProcess = await startUntil(entry('bench/baseline-server.ts'), process.env, /listening (\d+)/);
  let baseline: HttpRow;
  try {
    progress.step('baseline (uWS hello world)');
    const url = `http://127.0.0.1:${baselineProcess.match[1]}/`;
    const m = await measure(load, baselineProcess.child.pid!, url, {}, options);
    baseline = { scenario: 'uws-hello-world', description: 'raw uWebSockets.js hello world', mode: 'baseline', ...m };
  } finally {
    await stopChild(baselineProcess.child);
  }

  for (const mode of modes) {
    let baton: Baton;
    try {
      baton = await startBaton(mode);
    } catch (error) {
      // One broken mode should not cost the others' numbers; the report says why it is missing.
      const reason = (error instanceof Error ? error.message : String(error)).split('\n').slice(0, 6).join(' ').slice(0, 600);
      notes.push(`${mode} mode skipped: Baton did not start (${reason}).`);
      progress.note(`${mode} mode skipped: Baton did not start`);
      continue;
    }
    try {
      for (const scenario of httpScenarios) {
        if (!scenario.modes.includes(mode)) continue;
        progress.step(`${scenario.name} (${mode})`);
        const { path: urlPath, headers } = scenario.request(baton.ctx);
        const m = await measure(load, baton.pid, baton.url + urlPath, { ...headers }, options);
        http.push({ scenario: scenario.name, description: scenario.description, mode, ...m });
        if (m.result.errors > 0) notes.push(`${scenario.name} (${mode}): ${m.result.errors} non-2xx responses or socket errors.`);
      }
    } finally {
      await baton.stop();
    }
  }

  const inProcess: InProcessRow[] = [];
  const ctx = { redisUrl: process.env.REDIS_URL || null, durationMs: Math.min(3_000, options.durationSeconds * 1000), concurrency: 64 };
  for (const scenario of inProcessScenarios) {
    progress.step(scenario.name);
    const skipped = scenario.skipReason(ctx);
    inProcess.push({
      scenario: scenario.name,
      description: scenario.description,
      result: skipped === null ? await scenario.run(ctx) : null,
      skipped,
    });
  }
  progress.end();

  const markdown = report(load, options, baseline, http, inProcess, await serverVersions(), notes, loadAtStart);
  writeFileSync(options.out, markdown);
  process.stdout.write(`${markdown}\nwritten to ${path.relative(process.cwd(), options.out)}\n`);
  return markdown;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runBench().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(`bench failed: ${error instanceof Error ? error.stack : String(error)}`);
      process.exit(1);
    },
  );
}
