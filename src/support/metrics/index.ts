/**
 * The metrics facade (DESIGN §13): one named method per thing Baton measures, so names and tags
 * are decided here once and documented in docs/observability.md. `createMetrics(BATON_STATSD)` sends
 * StatsD over UDP through hot-shots (DogStatsD tags, `baton.` prefix); unset, it returns a no-op
 * with the same interface. Every method returns at once and never throws: sends are buffered,
 * counters aggregated client-side, and socket errors go to a rate-limited log line.
 */
import { StatsD } from 'hot-shots';

export type ExecutionOutcome = 'completed' | 'failed' | 'cancelled';
export type AgentCallOutcome = 'success' | 'error' | 'timeout' | 'rejected' | 'circuit_open';
export type CircuitState = 'closed' | 'open' | 'half_open';
export type ApprovalDecision = 'approved' | 'rejected' | 'timed_out';
export type WebhookOutcome = 'delivered' | 'retry' | 'failed';
export type StoreName = 'redis' | 'postgres';

export interface Metrics {
  /** One finished HTTP request: `route` is the route pattern (e.g. `/v1/api-keys/:id`). */
  httpRequest(route: string, method: string, status: number, durationMs: number): void;
  /** A request refused with 429 RATE_LIMIT_EXCEEDED; `window` is the window that refused. */
  rateLimitRejected(tier: string, window: 'minute' | 'day'): void;
  /** An orchestration refused with 429 QUEUE_FULL. */
  queueRejected(tier: string): void;

  executionStarted(tier: string): void;
  /** An execution reached a final state after `durationMs` (accepted to final). */
  executionFinished(outcome: ExecutionOutcome, durationMs: number): void;
  /** Executions waiting (PENDING) in the concurrency queue, as last seen by this worker. */
  queueDepth(depth: number): void;
  /** Executions running on this worker. */
  runningExecutions(count: number): void;

  /** One call to an agent's /execute. */
  agentCall(agentId: string, outcome: AgentCallOutcome, durationMs: number): void;
  /** An agent's circuit breaker changed state. */
  circuitState(agentId: string, state: CircuitState): void;

  sseOpened(): void;
  sseClosed(): void;
  sseEventsSent(count: number): void;

  approvalRequested(): void;
  approvalDecided(decision: ApprovalDecision, waitMs: number): void;
  /** Approvals waiting for a decision, as counted by the caller. */
  approvalsPending(count: number): void;

  /** One webhook delivery attempt; `attempt` counts from 1. */
  webhookDelivery(event: string, outcome: WebhookOutcome, durationMs: number, attempt: number): void;

  /** Event-loop delay percentiles over the last sampling interval, in milliseconds. */
  eventLoopLag(p50Ms: number, p99Ms: number, maxMs: number): void;
  /** One timed round trip (ping) to a backing store; `ok` false when it failed. */
  storeLatency(store: StoreName, durationMs: number, ok: boolean): void;

  /** Sends what is buffered and closes the socket. */
  close(): Promise<void>;
}

export interface MetricsLogger {
  warn(context: object, message: string): void;
}

export interface MetricsOptions {
  /** Tag on every metric: which worker process sent it. */
  readonly worker?: string;
  readonly logger?: MetricsLogger;
  /** Milliseconds between buffer flushes. Default 250. */
  readonly flushIntervalMs?: number;
}

/** `host:port` (IPv6 as `[addr]:port`); throws on anything else, at start-up. */
export function parseStatsdAddress(address: string): { readonly host: string; readonly port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(address.trim());
  const port = match === null ? NaN : Number(match[3]);
  if (match === null || !(port > 0 && port < 65536)) {
    throw new RangeError(`BATON_STATSD: expected host:port, got '${address}'`);
  }
  return { host: match[1] ?? match[2] ?? '', port };
}

// Route patterns become tag values without characters StatsD servers or Graphite treat specially.
const routeTags = new Map<string, string>();
function routeTag(route: string): string {
  let tag = routeTags.get(route);
  if (tag === undefined) {
    tag = route.replace(/^\/+/, '').replace(/:/g, '').replace(/[^A-Za-z0-9_.-]+/g, '_') || 'root';
    routeTags.set(route, tag);
  }
  return tag;
}

const STATUS_CLASS = ['1xx', '1xx', '2xx', '3xx', '4xx', '5xx'] as const;
// Socket errors repeat for as long as the agent is away; one log line per interval is enough.
const ERROR_LOG_INTERVAL_MS = 60_000;

/** A Metrics that sends to StatsD at `address`, or the no-op one when `address` is null. */
export function createMetrics(address: string | null, options: MetricsOptions = {}): Metrics {
  if (address === null) return noopMetrics();
  const { host, port } = parseStatsdAddress(address);
  let lastErrorLogMs = -Infinity;
  const client = new StatsD({
    host,
    port,
    protocol: 'udp',
    prefix: 'baton.',
    mock: false,
    cacheDns: true,
    // One datagram per flush rather than one per metric; 1400 bytes fits an Ethernet MTU.
    maxBufferSize: 1400,
    bufferFlushInterval: options.flushIntervalMs ?? 250,
    aggregation: { flushInterval: options.flushIntervalMs ?? 250 },
    globalTags: options.worker === undefined ? {} : { worker: options.worker },
    errorHandler: (err) => {
      const now = Date.now();
      if (now - lastErrorLogMs < ERROR_LOG_INTERVAL_MS) return;
      lastErrorLogMs = now;
      options.logger?.warn({ err }, 'sending metrics failed; metrics are dropped until the StatsD agent answers');
    },
  });
  // hot-shots unrefs its UDP socket itself, so metrics never keep a draining worker alive.
  return statsdMetrics(client);
}

function safely<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void {
  return (...args: A) => {
    try {
      fn(...args);
    } catch {
      // Metrics must never fail a request; hot-shots reports socket errors to errorHandler.
    }
  };
}

function statsdMetrics(client: StatsD): Metrics {
  let sseOpen = 0;
  return {
    httpRequest: safely((route, method, status, durationMs) => {
      const tags = {
        route: routeTag(route),
        method,
        status: String(status),
        status_class: STATUS_CLASS[Math.floor(status / 100)] ?? 'other',
      };
      client.increment('http.requests', 1, tags);
      client.timing('http.latency', durationMs, tags);
    }),
    rateLimitRejected: safely((tier, window) => client.increment('ratelimit.rejected', 1, { tier, window })),
    queueRejected: safely((tier) => client.increment('queue.rejected', 1, { tier })),
    executionStarted: safely((tier) => client.increment('executions.started', 1, { tier })),
    executionFinished: safely((outcome, durationMs) => {
      client.increment(`executions.${outcome}`, 1);
      client.timing('executions.duration', durationMs, { outcome });
    }),
    queueDepth: safely((depth) => client.gauge('executions.queue_depth', depth)),
    runningExecutions: safely((count) => client.gauge('executions.running', count)),
    agentCall: safely((agentId, outcome, durationMs) => {
      const tags = { agent: agentId, outcome };
      client.increment('agent.calls', 1, tags);
      client.timing('agent.latency', durationMs, tags);
    }),
    circuitState: safely((agentId, state) => {
      client.gauge('agent.circuit_open', state === 'closed' ? 0 : state === 'half_open' ? 0.5 : 1, { agent: agentId });
      client.increment('agent.circuit_transitions', 1, { agent: agentId, state });
    }),
    sseOpened: safely(() => {
      sseOpen += 1;
      client.increment('sse.opened', 1);
      client.gauge('sse.connections', sseOpen);
    }),
    sseClosed: safely(() => {
      sseOpen = Math.max(0, sseOpen - 1);
      client.increment('sse.closed', 1);
      client.gauge('sse.connections', sseOpen);
    }),
    sseEventsSent: safely((count) => client.increment('sse.events_sent', count)),
    approvalRequested: safely(() => client.increment('approvals.requested', 1)),
    approvalDecided: safely((decision, waitMs) => {
      client.increment('approvals.decided', 1, { decision });
      client.timing('approvals.wait', waitMs, { decision });
    }),
    approvalsPending: safely((count) => client.gauge('approvals.pending', count)),
    webhookDelivery: safely((event, outcome, durationMs, attempt) => {
      const tags = { event, outcome };
      client.increment('webhooks.deliveries', 1, tags);
      client.timing('webhooks.latency', durationMs, tags);
      if (attempt > 1) client.increment('webhooks.retries', 1, { event });
    }),
    eventLoopLag: safely((p50Ms, p99Ms, maxMs) => {
      client.gauge('eventloop.lag_p50', p50Ms);
      client.gauge('eventloop.lag_p99', p99Ms);
      client.gauge('eventloop.lag_max', maxMs);
    }),
    storeLatency: safely((store, durationMs, ok) => {
      if (ok) client.timing('store.latency', durationMs, { store });
      else client.increment('store.errors', 1, { store });
    }),
    close: () =>
      new Promise<void>((resolve) => {
        try {
          client.close(() => resolve());
        } catch {
          resolve();
        }
      }),
  };
}

/** The Metrics used when BATON_STATSD is unset: every method does nothing. */
export function noopMetrics(): Metrics {
  const nothing = (): void => undefined;
  return {
    httpRequest: nothing,
    rateLimitRejected: nothing,
    queueRejected: nothing,
    executionStarted: nothing,
    executionFinished: nothing,
    queueDepth: nothing,
    runningExecutions: nothing,
    agentCall: nothing,
    circuitState: nothing,
    sseOpened: nothing,
    sseClosed: nothing,
    sseEventsSent: nothing,
    approvalRequested: nothing,
    approvalDecided: nothing,
    approvalsPending: nothing,
    webhookDelivery: nothing,
    eventLoopLag: nothing,
    storeLatency: nothing,
    close: async () => undefined,
  };
}
