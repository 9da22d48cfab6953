/**
 * WebhookActor: sends the webhook outbox (DESIGN §11). It claims due deliveries from Postgres
 * (on a keyed poll timer, and at once on `webhook.kick`), POSTs each through the guarded outbound
 * dispatcher with a 10 s deadline, and records the outcome: delivered on 2xx; retried with
 * exponential backoff and jitter on network errors, 5xx, 408 and 429 (8 attempts over about an
 * hour); failed on any other status, on a refused URL, or when attempts run out. Its only state
 * is what is in flight: the outbox is in Postgres, so a restarted actor, or another worker,
 * carries on where this one stopped (a claim whose worker died lapses after `leaseMs`).
 * Deliveries of one execution go out one at a time, in order (the store's claim enforces it).
 */
import { endWebhookSpan, startWebhookSpan, traceparentOf } from '../support/telemetry/index.js';
import { request, type Dispatcher } from 'undici';
import { checkUrlSyntax, isUrlNotAllowedError } from '../domain/url-policy.js';
import type { WebhookDelivery } from '../domain/webhooks.js';
import type { WebhookStore } from '../ports/webhooks.js';
import { classifyStatus, DEFAULT_RETRY_POLICY, parseRetryAfter, retryDelayMs, type RetryPolicy } from '../logic/webhooks/retry.js';
import { attemptHeaders } from '../logic/webhooks/sign.js';
import { reply } from './kit/ask.js';
import { defineActor, type ActorDefinition, type ActorKit } from './kit/define.js';
import type { KitLogger } from './kit/logger.js';
import { dispatch, type Ref } from './kit/nact.js';
import type { ActorRuntime } from './root-supervisor.js';
import {
  createWebhookSender,
  type WebhookAttemptOutcome,
  type WebhookCommand,
  type WebhookMessage,
  type WebhookSender,
} from './webhook-protocol.js';

/** Hooks for metrics (src/support/metrics); the default does nothing. Must not throw. */
export interface WebhookMetrics {
  attempt(event: string, outcome: Exclude<WebhookAttemptOutcome, 'unrecorded'>, durationMs: number): void;
}

export const noopWebhookMetrics: WebhookMetrics = { attempt: () => undefined };

export interface WebhookActorOptions {
  readonly store: Pick<WebhookStore, 'claimDue' | 'markDelivered' | 'scheduleRetry' | 'markFailed'>;
  readonly logger: KitLogger;
  /** The shared outbound dispatcher (createOutboundDispatcher): enforces the URL policy per connection. */
  readonly dispatcher: Dispatcher;
  /** BATON_ALLOW_PRIVATE_URLS: http and private addresses allowed (tests, dev). */
  readonly allowPrivate: boolean;
  /** Claim poll interval when idle. Default 1000. */
  readonly pollIntervalMs?: number;
  /** Deliveries in flight at once. Default 16. */
  readonly concurrency?: number;
  /** Per-attempt deadline. Default 10000. */
  readonly timeoutMs?: number;
  /** How long a claim holds a row before another worker may take it over. Default 60000; must exceed timeoutMs. */
  readonly leaseMs?: number;
  readonly retry?: RetryPolicy;
  /** Jitter source, [0, 1). Default Math.random. */
  readonly random?: () => number;
  /** Response bytes read (then discarded) before the connection is dropped. Default 65536. */
  readonly maxResponseBytes?: number;
  readonly metrics?: WebhookMetrics;
  readonly userAgent?: string;
}

export interface WebhookState {
  claiming: boolean;
  /** A claim was asked for while one was running: claim again when it returns. */
  claimAgain: boolean;
  readonly inFlight: Set<string>;
  delivered: number;
  retried: number;
  failed: number;
  claimFailures: number;
}

/** What one POST came to, before it is recorded. */
interface AttemptResult {
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly verdict: 'delivered' | 'retry' | 'final';
  readonly retryAfterSeconds?: number;
}

const POLL = 'poll';
const LOG_EVERY_NTH_FAILURE = 100;

export function webhookActor(options: WebhookActorOptions): ActorDefinition<WebhookState, WebhookMessage> {
  const { store, logger, dispatcher, allowPrivate } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const concurrency = options.concurrency ?? 16;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const leaseMs = options.leaseMs ?? 60_000;
  const policy = options.retry ?? DEFAULT_RETRY_POLICY;
  const random = options.random ?? Math.random;
  const maxResponseBytes = options.maxResponseBytes ?? 65_536;
  const metrics = options.metrics ?? noopWebhookMetrics;
  const userAgent = options.userAgent ?? 'baton-webhooks/1';
  if (!(pollIntervalMs > 0) || !(timeoutMs > 0)) throw new RangeError('webhook intervals must be > 0');
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be an integer >= 1');
  if (!(leaseMs > timeoutMs)) throw new RangeError('leaseMs must exceed timeoutMs, or a slow attempt could be taken over mid-flight');

  type Kit = ActorKit<WebhookMessage>;

  const armPoll = (kit: Kit): void => kit.timers.start(POLL, pollIntervalMs, (timer) => ({ type: 'webhook.pollDue', timer }));

  const claim = (state: WebhookState, kit: Kit): void => {
    if (state.claiming) {
      state.claimAgain = true;
      return;
    }
    const limit = concurrency - state.inFlight.size;
    // Full: the next finished attempt claims again.
    if (limit <= 0) return;
    state.claiming = true;
    state.claimAgain = false;
    const self = kit.self;
    const now = new Date(kit.clock.now());
    store.claimDue(now, limit, leaseMs).then(
      (deliveries) => dispatch(self, { type: 'webhook.claimed', deliveries, limit }),
      (error: unknown) => dispatch(self, { type: 'webhook.claimFailed', error }),
    );
  };

  /** POSTs once; never throws. */
  const post = async (d: WebhookDelivery, nowMs: number, traceparent: string | undefined): Promise<AttemptResult> => {
    const check = checkUrlSyntax(d.url, { allowPrivate });
    if (!check.ok) return { statusCode: null, error: `URL not allowed: ${check.message}`, verdict: 'final' };
    const headers: Record<string, string> = { ...d.headers, ...attemptHeaders(d.id, d.body, d.signingSecret, nowMs), 'user-agent': userAgent };
    // The stored traceparent names the run; each attempt sends its own span as the parent instead.
    if (traceparent !== undefined) headers.traceparent = traceparent;
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const res = await request(check.url, { dispatcher, method: 'POST', headers, body: d.body, signal });
      await discardBody(res.body, maxResponseBytes);
      const retryAfter = res.headers['retry-after'];
      const retryAfterSeconds = parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, nowMs);
      const verdict = classifyStatus(res.statusCode);
      return {
        statusCode: res.statusCode,
        error: verdict === 'delivered' ? null : `HTTP ${res.statusCode}`,
        verdict,
        ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
      };
    } catch (err) {
      // A refused address is configuration, not a passing fault: retrying cannot help.
      if (isUrlNotAllowedError(err)) return { statusCode: null, error: `URL not allowed: ${err.message}`, verdict: 'final' };
      if (signal.aborted) return { statusCode: null, error: `No response within ${timeoutMs} ms`, verdict: 'retry' };
      return { statusCode: null, error: describeError(err), verdict: 'retry' };
    }
  };

  /** One attempt, sent and recorded; resolves to what was recorded. */
  const deliver = async (d: WebhookDelivery, kit: Kit): Promise<WebhookAttemptOutcome> => {
    const startedMs = performance.now();
    const span = startWebhookSpan(d.event, d.id, d.attempts, d.url, d.headers.traceparent);
    const result = await post(d, kit.clock.now(), traceparentOf(span));
    endWebhookSpan(span, result.statusCode, result.verdict === 'delivered' ? null : result.error);
    const at = new Date(kit.clock.now());
    const record = { attempt: d.attempts, at, statusCode: result.statusCode, error: result.error };
    const durationMs = performance.now() - startedMs;
    try {
      if (result.verdict === 'delivered') {
        await store.markDelivered(d.id, record);
        metrics.attempt(d.event, 'delivered', durationMs);
        return 'delivered';
      }
      if (result.verdict === 'retry' && d.attempts < d.maxAttempts) {
        const delay = retryDelayMs(d.attempts, policy, random, result.retryAfterSeconds);
        await store.scheduleRetry(d.id, record, new Date(at.getTime() + delay));
        metrics.attempt(d.event, 'retry', durationMs);
        return 'retry';
      }
      const reason = result.verdict === 'retry' ? `gave up after ${d.attempts} attempts; last: ${result.error ?? ''}` : (result.error ?? 'failed');
      await store.markFailed(d.id, { ...record, error: reason });
      metrics.attempt(d.event, 'failed', durationMs);
      logger.warn(
        { actor: kit.path, deliveryId: d.id, executionId: d.executionId, event: d.event, host: hostOf(d.url), reason },
        'webhook delivery failed for good',
      );
      return 'failed';
    } catch (err) {
      logger.warn({ actor: kit.path, deliveryId: d.id, err }, 'could not record a webhook attempt; the claim will lapse and the delivery be retried');
      return 'unrecorded';
    }
  };

  return defineActor<WebhookState, WebhookMessage>({
    init: (kit) => {
      // Start with a claim: a restarted actor picks up whatever was due while it was away.
      dispatch(kit.self, { type: 'webhook.kick' });
      return { claiming: false, claimAgain: false, inFlight: new Set(), delivered: 0, retried: 0, failed: 0, claimFailures: 0 };
    },

    handle: (state, msg, kit) => {
      switch (msg.type) {
        case 'webhook.kick':
        case 'webhook.pollDue':
          claim(state, kit);
          return state;

        case 'webhook.claimed': {
          state.claiming = false;
          if (state.claimFailures > 0) logger.info({ actor: kit.path, failedClaims: state.claimFailures }, 'webhook outbox reachable again');
          state.claimFailures = 0;
          const self = kit.self;
          for (const d of msg.deliveries) {
            if (state.inFlight.has(d.id)) continue;
            state.inFlight.add(d.id);
            void deliver(d, kit).then((outcome) => dispatch(self, { type: 'webhook.attemptFinished', deliveryId: d.id, outcome }));
          }
          // A full batch means more may be due right now; otherwise wait for the next poll.
          if (state.claimAgain || msg.deliveries.length >= msg.limit) claim(state, kit);
          armPoll(kit);
          return state;
        }

        case 'webhook.claimFailed': {
          state.claiming = false;
          state.claimFailures += 1;
          if (state.claimFailures % LOG_EVERY_NTH_FAILURE === 1) {
            logger.warn({ actor: kit.path, err: msg.error, failedClaims: state.claimFailures }, 'could not claim webhook deliveries; will retry at the next poll');
          }
          armPoll(kit);
          return state;
        }

        case 'webhook.attemptFinished': {
          // Ignored when unknown: an attempt started before a restart, which this state never counted.
          if (!state.inFlight.delete(msg.deliveryId)) return state;
          if (msg.outcome === 'delivered') state.delivered += 1;
          else if (msg.outcome === 'retry') state.retried += 1;
          else if (msg.outcome === 'failed') state.failed += 1;
          // A finished delivery may release the next event of its execution: look now, not at the next poll.
          claim(state, kit);
          return state;
        }

        case 'webhook.getStatus':
          reply(msg.replyTo, {
            type: 'webhook.status',
            inFlight: state.inFlight.size,
            claiming: state.claiming,
            delivered: state.delivered,
            retried: state.retried,
            failed: state.failed,
          });
          return state;
      }
    },
  });
}

/** Spawns the WebhookActor under `runtime`'s root; returns its ref and the facade. */
export function spawnWebhookActor(
  runtime: Pick<ActorRuntime, 'spawnChild'>,
  options: WebhookActorOptions,
  name = 'webhooks',
): { readonly ref: Ref<WebhookCommand>; readonly sender: WebhookSender } {
  const ref = runtime.spawnChild(webhookActor(options), { name });
  return { ref, sender: createWebhookSender(ref) };
}

/** Reads up to `maxBytes` of a response we do not need, then lets the connection go. */
async function discardBody(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<void> {
  let total = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > maxBytes) break;
    }
  } catch {
    // The status is what counts; a body that breaks off changes nothing.
  } finally {
    if (!body.readableEnded) body.destroy();
  }
}

function describeError(err: unknown): string {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  const message = err instanceof Error ? err.message : String(err);
  return typeof code === 'string' ? `${code}: ${message}` : message;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'invalid-url';
  }
}
