/**
 * In-process Coordination for embedded mode, observably the same as the Redis adapter: delivery
 * is asynchronous, `publish` counts receiving adapters (workers) rather than handlers, and a
 * broadcast waits for each receiving adapter's handlers to finish. Adapters sharing one bus
 * behave like workers sharing one Redis, which is how tests model several workers.
 */
import { EVENT_STREAM_MAX_LEN, EVENT_STREAM_TTL_MS, type StreamEvent } from '../../../domain/events.js';
import { type Coordination } from '../../../ports/coordination.js';
import { type RateLimitDecision, type RateLimits } from '../../../domain/limits.js';
import { stderrLogger, type StoreLogger } from '../log.js';
import { followEventsOf } from './event-follow.js';
import { runHandlers, type Handler } from './handlers.js';
import { keys } from './keys.js';
import { assertLimits, DAY_MS, decide, MINUTE_MS } from '../../../logic/rate-windows.js';
import { memoryAcquire, memoryRelease, memoryRenew, memoryState, type MemorySlotTable } from './concurrency-slots.js';

/** One adapter's presence on a channel of the bus. */
interface Member {
  deliver(message: string): Promise<unknown>;
}

/** One account's counters: the current minute and day windows (older ones are simply replaced). */
interface RateCounter {
  minuteIndex: number;
  minute: number;
  dayIndex: number;
  day: number;
}

export interface MemoryBus {
  readonly channels: Map<string, Set<Member>>;
  /** Rate-limit counters per account, shared like Redis keys by every adapter on the bus. */
  readonly rateCounters: Map<string, RateCounter>;
  /** Day window last swept for counters of accounts that stopped calling. */
  rateSweptDay: number;
  /** Event streams, shared like Redis Streams by every adapter on the bus. */
  readonly eventStreams: Map<string, MemoryEventStream>;
  /** When expired event streams were last swept (epoch ms). */
  eventsSweptMs: number;
  /** Concurrency slots and queues per account (lua/slot-*.lua), shared like Redis keys. */
  readonly slots: MemorySlotTable;
}

/** One in-process event stream: like the Redis Stream plus its counter (lua/event-append-2.lua). */
interface MemoryEventStream {
  seq: number;
  /** Oldest first, at most EVENT_STREAM_MAX_LEN. */
  readonly events: StreamEvent[];
  expiresAtMs: number;
}

// Expired streams are dropped at most this often, on an append.
const EVENT_SWEEP_INTERVAL_MS = 60_000;

/** Plain code doing what lua/event-append-2.lua does; synchronous, hence atomic in one process. */
function appendToStream(bus: MemoryBus, stream: string, type: string, data: string, floorSeq: number, nowMs: number): StreamEvent {
  if (nowMs - bus.eventsSweptMs > EVENT_SWEEP_INTERVAL_MS) {
    for (const [name, entry] of bus.eventStreams) if (entry.expiresAtMs <= nowMs) bus.eventStreams.delete(name);
    bus.eventsSweptMs = nowMs;
  }
  let entry = bus.eventStreams.get(stream);
  if (entry === undefined || entry.expiresAtMs <= nowMs) {
    entry = { seq: 0, events: [], expiresAtMs: 0 };
    bus.eventStreams.set(stream, entry);
  }
  entry.seq = Math.max(entry.seq + 1, floorSeq + 1);
  entry.expiresAtMs = nowMs + EVENT_STREAM_TTL_MS;
  const event: StreamEvent = { seq: entry.seq, type, data };
  entry.events.push(event);
  if (entry.events.length > EVENT_STREAM_MAX_LEN) entry.events.shift();
  return event;
}

/** Events above `afterSeq` (binary search: sequences grow but may skip after a floor). */
function readStream(bus: MemoryBus, stream: string, afterSeq: number, limit: number, nowMs: number): StreamEvent[] {
  const entry = bus.eventStreams.get(stream);
  if (entry === undefined || entry.expiresAtMs <= nowMs) return [];
  const events = entry.events;
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (events[mid]!.seq <= afterSeq) lo = mid + 1;
    else hi = mid;
  }
  return events.slice(lo, lo + limit);
}

export function createMemoryBus(): MemoryBus {
  return { channels: new Map(), rateCounters: new Map(), rateSweptDay: 0, eventStreams: new Map(), eventsSweptMs: 0, slots: new Map() };
}

/** Plain code doing what lua/rate-limit-2.lua does; synchronous, hence atomic in one process. */
function countRequest(bus: MemoryBus, accountId: string, limits: RateLimits, nowMs: number): RateLimitDecision {
  const minuteIndex = Math.floor(nowMs / MINUTE_MS);
  const dayIndex = Math.floor(nowMs / DAY_MS);
  if (dayIndex > bus.rateSweptDay) {
    // Counters of earlier days can never be read again; dropping them bounds memory to the
    // accounts active today, like the TTLs on the Redis keys.
    for (const [id, counter] of bus.rateCounters) if (counter.dayIndex < dayIndex) bus.rateCounters.delete(id);
    bus.rateSweptDay = dayIndex;
  }
  let counter = bus.rateCounters.get(accountId);
  if (counter === undefined) {
    counter = { minuteIndex, minute: 0, dayIndex, day: 0 };
    bus.rateCounters.set(accountId, counter);
  }
  // Only the latest window's count is kept: a check in another window starts from zero, as the
  // Redis script finds no key for a window it has not counted yet.
  if (counter.minuteIndex !== minuteIndex) {
    counter.minuteIndex = minuteIndex;
    counter.minute = 0;
  }
  if (counter.dayIndex !== dayIndex) {
    counter.dayIndex = dayIndex;
    counter.day = 0;
  }
  if (counter.minute >= limits.perMinute || counter.day >= limits.perDay) {
    return decide(false, counter.minute, counter.day, limits, nowMs);
  }
  counter.minute += 1;
  counter.day += 1;
  return decide(true, counter.minute, counter.day, limits, nowMs);
}

export interface MemoryCoordinationOptions {
  /** Shared with other adapters to model several workers; a fresh bus by default. */
  readonly bus?: MemoryBus;
  readonly log?: StoreLogger;
}

export function memoryCoordination(options: MemoryCoordinationOptions = {}): Coordination {
  const bus = options.bus ?? createMemoryBus();
  const log = options.log ?? stderrLogger;
  // This adapter's handlers per channel, and its member object on the bus for that channel.
  const own = new Map<string, { readonly handlers: Set<{ readonly handler: Handler }>; readonly member: Member }>();
  let closed = false;

  function assertOpen(): void {
    if (closed) throw new Error('coordination adapter is closed');
  }

  function receivers(channel: string): Member[] {
    return [...(bus.channels.get(channel) ?? [])];
  }

  function leave(channel: string, member: Member): void {
    const members = bus.channels.get(channel);
    if (members === undefined) return;
    members.delete(member);
    if (members.size === 0) bus.channels.delete(channel);
  }

  // Same channel names as the Redis adapter (the prefix is irrelevant in process).
  const k = keys('');
  const api: Coordination = {
    async publish(channel: string, message: string): Promise<number> {
      assertOpen();
      const members = receivers(channel);
      // Like a message arriving from Redis: handlers run after publish has returned.
      for (const member of members) setImmediate(() => void member.deliver(message));
      return members.length;
    },

    async subscribe(channel: string, handler: Handler): Promise<() => Promise<void>> {
      assertOpen();
      let state = own.get(channel);
      if (state === undefined) {
        const handlers = new Set<{ readonly handler: Handler }>();
        const member: Member = { deliver: (message) => runHandlers(handlers, message, channel, log) };
        state = { handlers, member };
        own.set(channel, state);
        let members = bus.channels.get(channel);
        if (members === undefined) bus.channels.set(channel, (members = new Set()));
        members.add(member);
      }
      const entry = { handler };
      const current = state;
      current.handlers.add(entry);
      return async () => {
        if (!current.handlers.delete(entry) || current.handlers.size > 0) return;
        if (own.get(channel) !== current) return;
        own.delete(channel);
        leave(channel, current.member);
      };
    },

    async broadcastAndAwait(channel: string, message: string, timeoutMs: number) {
      assertOpen();
      const members = receivers(channel);
      const delivered = members.length;
      if (delivered === 0) return { delivered, acknowledged: 0 };
      let acknowledged = 0;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, timeoutMs));
        for (const member of members) {
          setImmediate(() => {
            void member.deliver(message).then(() => {
              acknowledged++;
              if (acknowledged === delivered) {
                clearTimeout(timer);
                resolve();
              }
            });
          });
        }
      });
      return { delivered, acknowledged };
    },

    async rateLimit(accountId: string, limits: RateLimits, nowMs: number): Promise<RateLimitDecision> {
      assertOpen();
      assertLimits(limits);
      return countRequest(bus, accountId, limits, nowMs);
    },

    async acquireSlot(accountId, holderId, limits, leaseMs, nowMs) {
      assertOpen();
      return memoryAcquire(bus.slots, accountId, holderId, limits, leaseMs, nowMs);
    },

    async releaseSlot(accountId, holderId, leaseMs, nowMs) {
      assertOpen();
      return memoryRelease(bus.slots, accountId, holderId, leaseMs, nowMs);
    },

    async renewSlots(accountId, holderIds, leaseMs, nowMs) {
      assertOpen();
      return memoryRenew(bus.slots, accountId, holderIds, leaseMs, nowMs);
    },

    async slotState(accountId, holderId, nowMs) {
      assertOpen();
      return memoryState(bus.slots, accountId, holderId, nowMs);
    },

    // In process, delivery cannot be interrupted.
    subscriptionHealthy: () => true,
    onSubscriptionRestored: () => undefined,

    async appendEvent(stream: string, type: string, data: string, floorSeq = 0): Promise<StreamEvent> {
      assertOpen();
      const event = appendToStream(bus, stream, type, data, floorSeq, Date.now());
      await api.publish(k.eventNotices(stream), JSON.stringify(event));
      return event;
    },

    async readEvents(stream: string, afterSeq: number, limit: number): Promise<StreamEvent[]> {
      assertOpen();
      return readStream(bus, stream, afterSeq, limit, Date.now());
    },

    followEvents(stream: string, afterSeq: number, listener: (event: StreamEvent) => void) {
      return followEventsOf(api, stream, k.eventNotices(stream), afterSeq, listener, log);
    },

    async ping(): Promise<void> {
      assertOpen();
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      for (const [channel, state] of own) leave(channel, state.member);
      own.clear();
    },
  };
  return api;
}
