/**
 * `npx tsx bench/tracing-overhead.ts`: what tracing costs on the hot paths, as ratios in one run.
 * Three Baton servers (one worker each) run side by side: tracing off (no OTEL_* variables), on
 * with every trace sampled, and on with 10% (`OTEL_TRACES_SAMPLER=traceidratio`,
 * `OTEL_TRACES_SAMPLER_ARG=0.1`), the last two exporting OTLP/HTTP JSON to a sink in this process
 * that reads and discards. For each scenario (authenticated status read, orchestrate with one
 * mock agent) the three are measured in turn, and each "on" figure is given as a ratio of "off".
 *
 * Environment: BENCH_DURATION seconds per measurement (default 3: 2 scenarios × 3 servers ≈ 18 s
 * of load), BENCH_CONNECTIONS (default 32), BENCH_LOAD=autocannon to force that generator.
 * DATABASE_URL and REDIS_URL set: real stores (own schema and key prefix), else embedded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { packageRoot } from '../src/support/paths.js';
import { pickLoadGenerator, type LoadResult } from './load.js';
import { startMockAgentFleet } from './mock-agent-fleet.js';
import { deleteRedisPrefix } from './redis-prefix.js';

const ADMIN_TOKEN = `bench-operator-${randomBytes(8).toString('hex')}`;
const DURATION_S = Number(process.env.BENCH_DURATION ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const REAL = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);

interface Variant {
  readonly name: string;
  readonly env: Readonly<Record<string, string>>;
}

interface Baton {
  readonly variant: Variant;
  readonly url: string;
  readonly key: string;
  readonly executionId: string;
  stop(): Promise<void>;
}

/** An OTLP/HTTP endpoint that reads each export and answers 200, counting bytes. */
async function startSink(): Promise<{ url: string; bytes: () => number; close: () => Promise<void> }> {
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, bytes: () => bytes, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function post(url: string, token: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const match = /baton listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (match !== null) resolve(match[1]!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
}

async function startBaton(variant: Variant, agentUrl: string): Promise<Baton> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BATON_PORT: '0',
    BATON_HOST: '127.0.0.1',
    BATON_ADMIN_TOKEN: ADMIN_TOKEN,
    // The primary's listening line (info) is what start-up waits for.
    BATON_LOG_LEVEL: 'info',
    BATON_WORKERS: '1',
    BATON_ALLOW_PRIVATE_URLS: 'true',
    ...variant.env,
  };
  delete env.BATON_STATSD;
  let dataDir: string | null = null;
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const prefix = `baton-bench:${randomBytes(4).toString('hex')}:`;
  if (REAL) {
    env.BATON_DB_SCHEMA = schema;
    env.BATON_REDIS_PREFIX = prefix;
  } else {
    delete env.DATABASE_URL;
    delete env.REDIS_URL;
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'baton-bench-'));
    env.BATON_DATA_DIR = dataDir;
  }
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(packageRoot, 'src/cli/main.ts'), 'serve'], { cwd: packageRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await listening(child);
  const account = await post(`${url}/v1/accounts`, ADMIN_TOKEN, {
    name: `bench ${variant.name}`,
    tier: 'ENTERPRISE',
    limits: { requestsPerMinute: 10_000_000, requestsPerDay: 10_000_000_000, concurrentExecutions: 100_000, queueSize: 10_000_000 },
  });
  const key = (await post(`${url}/v1/api-keys`, ADMIN_TOKEN, { name: 'bench', permissions: ['*'], accountId: account.id })).key as string;
  await post(`${url}/v1/agents`, key, {
    id: 'bench-trace-1',
    name: 'Bench trace agent',
    description: 'Answers at once',
    url: agentUrl,
    vertical: 'bench',
    capabilities: ['bench-trace'],
    pricing: { model: 'per_execution', basePrice: 0.001 },
  });
  const submitted = await post(`${url}/v1/orchestrate`, key, ORCHESTRATE);
  const executionId = submitted.executionId as string;
  return {
    variant,
    url,
    key,
    executionId,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      if (dataDir !== null) rmSync(dataDir, { recursive: true, force: true });
      if (REAL) {
        const sql = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => undefined });
        await sql.unsafe(`drop schema if exists "${schema}" cascade`);
        await sql.end({ timeout: 5 });
        await deleteRedisPrefix(process.env.REDIS_URL!, prefix);
      }
    },
  };
}

const ORCHESTRATE = { query: 'bench trace', selectionCriteria: { requiredCapabilities: ['bench-trace'], minConfidence: 0, maxAgents: 1 } };

function ratio(on: LoadResult, off: LoadResult): string {
  return off.okPerSecond === 0 ? 'n/a' : (on.okPerSecond / off.okPerSecond).toFixed(3);
}

async function main(): Promise<void> {
  const generator = pickLoadGenerator(process.env.BENCH_LOAD);
  if (generator === null) throw new Error('no load generator (wrk or autocannon)');
  const sink = await startSink();
  const fleet = await startMockAgentFleet([{ record: false, info: { id: 'bench-trace-1', capabilities: ['bench-trace'] } }]);
  const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: 'baton-bench' };
  const variants: Variant[] = [
    { name: 'off', env: {} },
    { name: 'on, 100%', env: { ...traced, OTEL_TRACES_SAMPLER: 'always_on' } },
    { name: 'on, 10%', env: { ...traced, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' } },
  ];
  // Started together: start-up is most of the wall time on a busy machine.
  const servers = await Promise.all(variants.map((v) => startBaton(v, fleet.agents[0]!.url)));
  try {
    const scenarios = [
      { name: 'status read', run: (b: Baton) => generator.run({ url: `${b.url}/v1/executions/${b.executionId}`, method: 'GET', headers: { authorization: `Bearer ${b.key}` }, body: null, connections: CONNECTIONS, durationSeconds: DURATION_S }) },
      { name: 'orchestrate (1 agent)', run: (b: Baton) => generator.run({ url: `${b.url}/v1/orchestrate`, method: 'POST', headers: { authorization: `Bearer ${b.key}`, 'content-type': 'application/json' }, body: JSON.stringify(ORCHESTRATE), connections: CONNECTIONS, durationSeconds: DURATION_S }) },
    ];
    const lines: string[] = [
      `Tracing overhead (${generator.name} ${generator.version}, ${CONNECTIONS} connections, ${DURATION_S} s each, ${REAL ? 'Postgres + Redis' : 'embedded'}, one worker, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)})`,
      '',
      '| scenario | tracing | 2xx/s | p50 ms | p99 ms | ratio to off |',
      '| --- | --- | ---: | ---: | ---: | ---: |',
    ];
    for (const scenario of scenarios) {
      const results: LoadResult[] = [];
      for (const server of servers) results.push(await scenario.run(server));
      results.forEach((r, i) => {
        lines.push(`| ${scenario.name} | ${variants[i]!.name} | ${Math.round(r.okPerSecond)} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${i === 0 ? '1.000' : ratio(r, results[0]!)} |`);
      });
    }
    lines.push('', `OTLP bytes received by the sink: ${sink.bytes().toLocaleString('en-US')}`);
    console.log(lines.join('\n'));
  } finally {
    await Promise.all(servers.map((s) => s.stop().catch(() => undefined)));
    await fleet.close();
    await sink.close();
  }
}

await main();
