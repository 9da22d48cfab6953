/** Port: shared coordination state (Redis, or in-process when embedded). */
import { EVENT_STREAM_MAX_LEN, type StreamEvent } from '../domain/events.js';
import { type ConcurrencyLimits, type RateLimitDecision, type RateLimits, type SlotAcquisition, type SlotState } from '../domain/limits.js';

/**
 * Shared coordination state (Redis, or in-process in embedded mode). Later features add
 * script-level operations (rate limits, queues, leases, event streams) here, one method each,
 * each implemented by a Lua script in the Redis adapter and by plain code in the memory adapter.
 */
export interface Coordination {
  /** Publishes to every subscriber on every worker and node; resolves to the receiver count. */
  publish(channel: string, message: string): Promise<number>;
  /** Subscribes; the returned function unsubscribes. Handlers never throw into the adapter. */
  subscribe(channel: string, handler: (message: string) => void | Promise<void>): Promise<() => Promise<void>>;
  /**
   * False while this worker's subscription connection is down: broadcasts sent meanwhile do not
   * reach it, so caches that rely on them (API keys) must not be trusted.
   */
  subscriptionHealthy(): boolean;
  /** Called each time the subscription comes back after a gap in which messages may have been missed. */
  onSubscriptionRestored(listener: () => void): void;
  /**
   * Publishes and waits until every receiving subscriber's handler has finished (each
   * acknowledges), or `timeoutMs` passes. Used where "at once on every worker" must hold,
   * such as key revocation. Resolves to how many received and how many acknowledged.
   */
  broadcastAndAwait(
    channel: string,
    message: string,
    timeoutMs: number,
  ): Promise<{ readonly delivered: number; readonly acknowledged: number }>;
  /**
   * Counts one request of `accountId` against both windows containing `nowMs`, atomically and
   * in one round trip: admitted only when both windows have room, and then counted in both;
   * a refused request is not counted. Shared by every worker and node on the same Redis.
   */
  rateLimit(accountId: string, limits: RateLimits, nowMs: number): Promise<RateLimitDecision>;
  /**
   * Concurrency slots and a FIFO queue per account (DESIGN §10), atomically and in one round
   * trip each: slots whose lease ended by `nowMs` are reclaimed and queued holders promoted into
   * free slots first; then `holderId` gets a slot (lease until `nowMs + leaseMs`) when one is
   * free and nobody waits, else a queue place, else nothing ('full'). Asking again for a holder
   * that already has a slot or a place returns it (a slot's lease is renewed).
   */
  acquireSlot(accountId: string, holderId: string, limits: ConcurrencyLimits, leaseMs: number, nowMs: number): Promise<SlotAcquisition>;
  /**
   * Frees the holder's slot or queue place (a no-op when it has neither), reclaims expired slots
   * and promotes queued holders into free slots, FIFO, with a lease of `leaseMs`; returns them,
   * for the caller to start. Uses the concurrent limit of the account's latest acquire.
   */
  releaseSlot(accountId: string, holderId: string, leaseMs: number, nowMs: number): Promise<string[]>;
  /** Extends the leases of holders whose slot is still live; returns those that no longer have one. */
  renewSlots(accountId: string, holderIds: readonly string[], leaseMs: number, nowMs: number): Promise<string[]>;
  slotState(accountId: string, holderId: string, nowMs: number): Promise<SlotState>;
  /**
   * Appends one event to a stream (a Redis Stream with a 24 h expiry, bounded to the most recent
   * `EVENT_STREAM_MAX_LEN` events) and gives it the stream's next sequence number, atomically, so
   * writers on any worker never share a number. `floorSeq`: the sequence continues after it if the
   * stream's counter was lost (in-process streams after a restart); 0 when unknown.
   */
  appendEvent(stream: string, type: string, data: string, floorSeq?: number): Promise<StreamEvent>;
  /** Events with a sequence above `afterSeq`, oldest first, at most `limit`. */
  readEvents(stream: string, afterSeq: number, limit: number): Promise<StreamEvent[]>;
  /**
   * Delivers every event after `afterSeq` to `listener`, existing ones first and then live ones,
   * in sequence order, each once, until the returned function is called. Works on any worker or
   * node whatever worker appended.
   */
  followEvents(stream: string, afterSeq: number, listener: (event: StreamEvent) => void): Promise<() => Promise<void>>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
