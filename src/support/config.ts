/**
 * Configuration from the environment (CLI flags override by passing `overrides`).
 * Precedence: explicit overrides > environment > defaults. Invalid values fail at start-up
 * with a message naming the variable, never later on a request.
 */
import os from 'node:os';
import path from 'node:path';
import { findInvalidEntry } from '../domain/ip-allowlist.js';

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
  readonly maxEventLoopDelayMs: number;
  readonly maxAgentQueueWaitMs: number;
  /** The optional semantic reranker of selection (docs/selection.md); off by default. */
  readonly selectionSemantic: boolean;
  /** Milliseconds a semantic rerank may take before the static selection is used instead. */
  readonly selectionSemanticBudgetMs: number;
}

export type ConfigOverrides = { -readonly [K in keyof Config]?: Config[K] };

type Env = Readonly<Record<string, string | undefined>>;

class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(name, `expected an integer from ${min} to ${max}, got '${raw}'`);
  }
  return value;
}

function flag(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').toLowerCase();
  if (raw === '' || raw === '0' || raw === 'false' || raw === 'no') return false;
  if (raw === '1' || raw === 'true' || raw === 'yes') return true;
  throw new ConfigError(name, `expected true or false, got '${env[name]}'`);
}

/** A switch: `on`/`off` as well as what `flag` accepts. */
function onOff(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').toLowerCase();
  if (raw === 'on') return true;
  if (raw === 'off') return false;
  return flag(env, name);
}

function text(env: Env, name: string): string | null {
  const raw = env[name];
  return raw === undefined || raw === '' ? null : raw;
}

function identifier(env: Env, name: string, fallback: string): string {
  const raw = text(env, name) ?? fallback;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw)) {
    throw new ConfigError(name, `expected a lowercase SQL identifier, got '${raw}'`);
  }
  return raw;
}

export function loadConfig(env: Env = process.env, overrides: ConfigOverrides = {}): Config {
  const databaseUrl = overrides.databaseUrl !== undefined ? overrides.databaseUrl : text(env, 'DATABASE_URL');
  const redisUrl = overrides.redisUrl !== undefined ? overrides.redisUrl : text(env, 'REDIS_URL');
  const embedded = databaseUrl === null || redisUrl === null;
  const port = overrides.port ?? integer(env, 'BATON_PORT', 8080, 0, 65535);
  const trusted = (text(env, 'BATON_TRUSTED_PROXIES') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const base: Config = {
    port,
    host: text(env, 'BATON_HOST') ?? '0.0.0.0',
    // In-process counters and streams cannot be shared between processes: embedded is one worker.
    workers: embedded ? 1 : integer(env, 'BATON_WORKERS', os.availableParallelism(), 1, 256),
    publicUrl: (text(env, 'BATON_PUBLIC_URL') ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    databaseUrl,
    redisUrl,
    redisPrefix: text(env, 'BATON_REDIS_PREFIX') ?? 'baton:',
    databaseSchema: identifier(env, 'BATON_DB_SCHEMA', 'baton'),
    dataDir: path.resolve(text(env, 'BATON_DATA_DIR') ?? './data'),
    adminToken: text(env, 'BATON_ADMIN_TOKEN'),
    statsd: text(env, 'BATON_STATSD'),
    allowPrivateUrls: flag(env, 'BATON_ALLOW_PRIVATE_URLS'),
    maxBodyBytes: integer(env, 'BATON_MAX_BODY_BYTES', 1_048_576, 1024, 64 * 1_048_576),
    trustedProxies: trusted,
    keyHashSecret: text(env, 'BATON_KEY_SECRET'),
    bodyTimeoutMs: integer(env, 'BATON_BODY_TIMEOUT_MS', 10_000, 100, 600_000),
    storeDeadlineMs: integer(env, 'BATON_STORE_DEADLINE_MS', 2_000, 100, 60_000),
    logLevel: text(env, 'BATON_LOG_LEVEL') ?? 'info',
    selectionSemantic: onOff(env, 'BATON_SELECTION_SEMANTIC'),
    selectionSemanticBudgetMs: integer(env, 'BATON_SELECTION_SEMANTIC_BUDGET_MS', 150, 1, 10_000),
    workflowsDir: text(env, 'BATON_WORKFLOWS_DIR') === null ? null : path.resolve(text(env, 'BATON_WORKFLOWS_DIR')!),
    maxBacklog: integer(env, 'BATON_MAX_BACKLOG', 2000, 1, 1_000_000),
    maxEventLoopDelayMs: integer(env, 'BATON_MAX_EVENT_LOOP_DELAY_MS', 100, 1, 60_000),
    maxAgentQueueWaitMs: integer(env, 'BATON_MAX_AGENT_QUEUE_WAIT_MS', 5000, 1, 600_000),
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
