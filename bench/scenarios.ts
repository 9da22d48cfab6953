/**
 * The scenario registry: every bench scenario is one object registered here, so later features
 * add theirs (orchestrate against the mock fleet in bench/orchestration-scenarios.ts, SSE
 * fan-out) with `registerScenario` from their own file imported by bench/run.ts, without
 * touching the runner. Registration order is run order.
 *
 * - `http` scenarios are driven by the load generator against a running Baton (one worker),
 *   after the same run measured the uWS hello-world baseline.
 * - `inprocess` scenarios run a closed loop inside the bench process and report operations/s.
 */
import { deleteRedisPrefix } from './redis-prefix.js';
import { randomBytes } from 'node:crypto';
import { spawnRateLimitActor } from '../src/actors/rate-limit-actor.js';
import { startActorSystem } from '../src/actors/root-supervisor.js';
import { silentLogger } from '../src/actors/kit/logger.js';
import { directRateLimiter } from '../src/services/limits/rate-limiter.js';
import { type RateLimiter } from '../src/ports/limits.js';
import type { Coordination } from '../src/ports/coordination.js';
import { ioredisCoordination, memoryCoordination } from '../src/adapters/stores/redis/index.js';
import type { HttpMethod } from './load.js';

export type BenchMode = 'embedded' | 'real';

/** What an HTTP scenario may use: the running server and an ENTERPRISE key with huge limits. */
export interface HttpContext {
  readonly baseUrl: string;
  readonly key: string;
  readonly keyId: string;
  /** Runs `fn` when this server is stopped (after every scenario of the mode), e.g. to close mock agents. */
  defer(fn: () => Promise<void>): void;
}

/** One request, repeated by the load generator for the whole run. */
export interface HttpRequestSpec {
  readonly method?: HttpMethod;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Sent as is; set `content-type` in `headers`. */
  readonly body?: string;
}

/** What `setup` prepared: values for `request`, and an optional line for the report after the load. */
export interface HttpSetup {
  readonly vars: Readonly<Record<string, string>>;
  afterLoad?(): string | null;
}

export interface HttpScenario {
  readonly kind: 'http';
  readonly name: string;
  readonly description: string;
  readonly modes: readonly BenchMode[];
  /** Also measure p99 added latency at a fixed 50% of this scenario's peak, against the baseline at the same rate. */
  readonly halfLoad?: boolean;
  /** Runs once before the load (register agents, create executions); throws if the server refuses. */
  setup?(ctx: HttpContext): Promise<HttpSetup>;
  request(ctx: HttpContext, vars: Readonly<Record<string, string>>): HttpRequestSpec;
}

export interface InProcessContext {
  readonly redisUrl: string | null;
  readonly durationMs: number;
  readonly concurrency: number;
}

export interface InProcessResult {
  readonly opsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly ops: number;
}

export interface InProcessScenario {
  readonly kind: 'inprocess';
  readonly name: string;
  readonly description: string;
  /** Null when it cannot run here (e.g. needs REDIS_URL); the reason is reported instead. */
  skipReason(ctx: InProcessContext): string | null;
  run(ctx: InProcessContext): Promise<InProcessResult>;
}

export type Scenario = HttpScenario | InProcessScenario;

const registry: Scenario[] = [];

export function registerScenario(scenario: Scenario): void {
  if (registry.some((s) => s.name === scenario.name)) throw new Error(`bench scenario '${scenario.name}' registered twice`);
  registry.push(scenario);
}

export function scenarios(): readonly Scenario[] {
  return registry;
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Runs `op` in `concurrency` closed loops for `durationMs`; latencies per op. */
export async function closedLoop(op: (i: number) => Promise<unknown>, ctx: InProcessContext): Promise<InProcessResult> {
  const latencies: number[] = [];
  let ops = 0;
  const started = performance.now();
  const deadline = started + ctx.durationMs;
  const loop = async (lane: number): Promise<void> => {
    let i = lane;
    while (performance.now() < deadline) {
      const t0 = performance.now();
      await op(i);
      latencies.push(performance.now() - t0);
      ops++;
      i += ctx.concurrency;
    }
  };
  await Promise.all(Array.from({ length: ctx.concurrency }, (_, lane) => loop(lane)));
  const elapsedMs = performance.now() - started;
  const sorted = Float64Array.from(latencies).sort();
  return { opsPerSecond: (ops / elapsedMs) * 1000, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), ops };
}

// Core HTTP hot paths.
registerScenario({
  kind: 'http',
  name: 'health',
  description: 'GET /health (no auth)',
  modes: ['embedded', 'real'],
  halfLoad: true,
  request: () => ({ path: '/health', headers: {} }),
});
registerScenario({
  kind: 'http',
  name: 'auth-test',
  description: 'GET /v1/auth/test (key auth from cache + rate-limit check)',
  modes: ['embedded', 'real'],
  request: (ctx) => ({ path: '/v1/auth/test', headers: { authorization: `Bearer ${ctx.key}` } }),
});
registerScenario({
  kind: 'http',
  name: 'authenticated-read',
  description: 'GET /v1/api-keys (auth + rate limit + one database read)',
  modes: ['embedded', 'real'],
  request: (ctx) => ({ path: '/v1/api-keys', headers: { authorization: `Bearer ${ctx.key}` } }),
});

// The rate-limit check alone, direct (what the gate uses) and through the RateLimitActor.
const ACCOUNTS = 1_000;
const HUGE = { perMinute: 1_000_000_000, perDay: 1_000_000_000_000 };

async function withCoordination<T>(store: 'memory' | 'redis', ctx: InProcessContext, fn: (c: Coordination) => Promise<T>): Promise<T> {
  if (store === 'memory') return fn(memoryCoordination());
  const url = ctx.redisUrl!;
  const prefix = `baton-bench:${randomBytes(4).toString('hex')}:`;
  const coordination = ioredisCoordination({ url, prefix });
  try {
    await coordination.ping();
    return await fn(coordination);
  } finally {
    await coordination.close();
    await deleteRedisPrefix(url, prefix);
  }
}

for (const store of ['memory', 'redis'] as const) {
  for (const path of ['direct', 'actor'] as const) {
    registerScenario({
      kind: 'inprocess',
      name: `ratelimit-${store}-${path}`,
      description: `rate-limit check alone, ${store} adapter, ${path === 'direct' ? 'limiter called directly (as the gate does)' : 'through the RateLimitActor (ask)'}`,
      skipReason: (ctx) => (store === 'redis' && ctx.redisUrl === null ? 'REDIS_URL not set' : null),
      run: (ctx) =>
        withCoordination(store, ctx, async (coordination) => {
          let limiter: RateLimiter = directRateLimiter(coordination);
          let stop = async (): Promise<void> => undefined;
          if (path === 'actor') {
            const runtime = startActorSystem({ logger: silentLogger });
            limiter = spawnRateLimitActor(runtime, { limiter }).limiter;
            stop = () => runtime.stop();
          }
          try {
            const ids = Array.from({ length: ACCOUNTS }, (_, i) => `acct_bench${i}`);
            return await closedLoop((i) => limiter.check(ids[i % ACCOUNTS]!, HUGE), ctx);
          } finally {
            await stop();
          }
        }),
    });
  }
}
