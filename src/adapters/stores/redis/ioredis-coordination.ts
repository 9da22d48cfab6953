/**
 * Coordination on Redis through ioredis. Three kinds of connection, because a connection in
 * subscriber mode cannot run commands and a blocking BLPOP would stall every command queued
 * behind it: one for commands (auto-pipelined), one for subscriptions, and a small pool for
 * blocking reads (one per broadcast waiting at that moment).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Redis, type RedisOptions } from 'ioredis';
import { EVENT_STREAM_MAX_LEN, EVENT_STREAM_TTL_MS, type StreamEvent } from '../../../domain/events.js';
import { type Coordination } from '../../../ports/coordination.js';
import { type RateLimitDecision, type RateLimits } from '../../../domain/limits.js';
import { stderrLogger, type StoreLogger } from '../log.js';
import { decodeEnvelope, encodeEnvelope, NONCE_LENGTH } from './envelope.js';
import { followEventsOf } from './event-follow.js';
import { runHandlers, type Handler } from './handlers.js';
import { keys } from './keys.js';
import { assertLimits, DAY_MS, decide, MINUTE_MS, windowOf } from '../../../logic/rate-windows.js';
import { redisSlots } from './concurrency-slots.js';
import { defineScripts } from './scripts.js';

export interface IoredisCoordinationOptions {
  readonly url: string;
  readonly prefix: string;
  readonly log?: StoreLogger;
}

const MAX_BACKOFF_MS = 2_000;
const CONNECT_TIMEOUT_MS = 2_000;
const COMMAND_TIMEOUT_MS = 5_000;
// An ack list outlives its broadcast only if the publisher died; expiry cleans it up.
const ACK_TTL_MS = 60_000;
// Idle blocking connections kept for the next broadcast; more are opened on demand.
const MAX_IDLE_BLOCKING = 2;
// The server-side BLPOP timeout normally ends a wait; this local guard only fires when Redis
// stops answering, so it is a little later than the server's.
const BLOCKING_GUARD_MS = 250;

/** Reconnects forever with capped exponential backoff. */
function retryStrategy(times: number): number {
  return Math.min(50 * 2 ** Math.min(times, 10), MAX_BACKOFF_MS);
}

interface ChannelState {
  readonly handlers: Set<{ readonly handler: Handler }>;
  /** Resolves once the SUBSCRIBE for this channel is confirmed. */
  ready: Promise<unknown>;
}

export function ioredisCoordination(options: IoredisCoordinationOptions): Coordination {
  const log = options.log ?? stderrLogger;
  const k = keys(options.prefix);
  const workerId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  // A connect attempt to an unreachable host gives up after 2 s (ioredis waits 10 s by default),
  // so commands queued meanwhile fail over to the next attempt or to their retry limit sooner.
  const base: RedisOptions = { retryStrategy, connectTimeout: CONNECT_TIMEOUT_MS };
  // Named so operators (and tests) can tell Baton's connections apart in CLIENT LIST.
  const named = (role: string): RedisOptions => ({ ...base, connectionName: `${options.prefix}${role}:${workerId}` });

  // Commands fail after one failed reconnect attempt rather than hanging a request, which then
  // answers 503; the connection itself keeps reconnecting. `commandTimeout` bounds a command on a
  // connection that looks up but no longer answers (a paused server, a dropped path), for
  // background work too; request-path calls have the shorter BATON_STORE_DEADLINE_MS.
  const commands = defineScripts(
    watch(
      new Redis(options.url, { ...named('commands'), enableAutoPipelining: true, maxRetriesPerRequest: 1, commandTimeout: COMMAND_TIMEOUT_MS }),
      'commands',
    ),
  );
  // Subscriptions are restored by ioredis after a reconnect (autoResubscribe).
  // No ready check: ioredis sends INFO for it after the connection name is set, and when a
  // SUBSCRIBE queued before connect goes out first, INFO fails ("Connection in subscriber mode")
  // and the connection loops on reconnects, dropping broadcasts (key revocation among them).
  const subscriber = watch(new Redis(options.url, { ...named('subscriber'), maxRetriesPerRequest: null, enableReadyCheck: false }), 'subscriber');
  const slots = redisSlots(commands, k);
  const idleBlocking: Redis[] = [];
  const openBlocking = new Set<Redis>();
  const channels = new Map<string, ChannelState>();
  // Fire-and-forget commands still queued; close() lets them finish before QUIT.
  const background = new Set<Promise<unknown>>();
  let closed = false;

  function inBackground(work: Promise<unknown>): void {
    background.add(work);
    void work.finally(() => background.delete(work));
  }

  function watch(redis: Redis, role: string): Redis {
    let healthy = true;
    // Logged once per outage, not once per reconnect attempt.
    redis.on('error', (err: unknown) => {
      if (!healthy) return;
      healthy = false;
      log.error({ err, role }, 'redis connection failed; reconnecting');
    });
    redis.on('ready', () => {
      if (healthy) return;
      healthy = true;
      log.warn({ role }, 'redis connection restored');
    });
    return redis;
  }

  // Healthy from the first confirmed connection until the connection drops; listeners hear when
  // it is back, since anything published in between never reached this worker.
  let subscribed = false;
  let hadGap = false;
  const restoredListeners: Array<() => void> = [];
  subscriber.on('ready', () => {
    subscribed = true;
    if (!hadGap) return;
    hadGap = false;
    for (const listener of restoredListeners) listener();
  });
  subscriber.on('close', () => {
    if (subscribed) hadGap = true;
    subscribed = false;
  });

  subscriber.on('message', (channel: string, raw: string) => {
    const envelope = decodeEnvelope(raw);
    const state = channels.get(channel);
    const done = state === undefined ? Promise.resolve() : runHandlers(state.handlers, envelope.message, channel, log);
    if (envelope.nonce === null) return;
    const ackKey = k.ack(envelope.nonce);
    void done.then(() => {
      // After close, handlers still running are abandoned: their publishers time out, as they
      // would for a worker that died.
      if (closed) return;
      inBackground(
        commands
          .batonAck(ackKey, workerId, ACK_TTL_MS)
          .catch((err: unknown) => log.error({ err, channel }, 'broadcast acknowledgement failed')),
      );
    });
  });

  function acquireBlocking(): Redis {
    const conn = idleBlocking.pop() ?? watch(new Redis(options.url, { ...named('blocking'), maxRetriesPerRequest: 1 }), 'blocking');
    openBlocking.add(conn);
    return conn;
  }

  function releaseBlocking(conn: Redis, reusable: boolean): void {
    if (reusable && !closed && idleBlocking.length < MAX_IDLE_BLOCKING) {
      idleBlocking.push(conn);
      return;
    }
    openBlocking.delete(conn);
    conn.disconnect();
  }

  /** Pops acknowledgements until `expected` arrived or the deadline passed; returns the count. */
  async function awaitAcks(ackKey: string, expected: number, deadline: number): Promise<number> {
    const conn = acquireBlocking();
    let received = 0;
    let reusable = true;
    try {
      while (received < expected) {
        const remainingMs = deadline - Date.now();
        if (remainingMs <= 0) break;
        // BLPOP takes seconds (fractions allowed); 0 would mean "forever".
        const seconds = Math.max(remainingMs, 10) / 1000;
        const popped = await withGuard(conn.blpop(ackKey, seconds), remainingMs + BLOCKING_GUARD_MS);
        if (popped === 'guard') {
          reusable = false; // still blocked server-side: unusable for the next wait
          break;
        }
        if (popped === null) break;
        received++;
      }
    } catch (err) {
      reusable = false;
      log.error({ err }, 'waiting for broadcast acknowledgements failed');
    } finally {
      releaseBlocking(conn, reusable);
    }
    return received;
  }

  const api: Coordination = {
    async publish(channel: string, message: string): Promise<number> {
      return commands.publish(k.channel(channel), encodeEnvelope(null, message));
    },

    async subscribe(channel: string, handler: Handler): Promise<() => Promise<void>> {
      const name = k.channel(channel);
      let state = channels.get(name);
      if (state === undefined) {
        const created: ChannelState = { handlers: new Set(), ready: Promise.resolve() };
        created.ready = subscriber.subscribe(name);
        channels.set(name, created);
        state = created;
      }
      const entry = { handler };
      const own = state;
      own.handlers.add(entry);
      try {
        await own.ready;
      } catch (err) {
        own.handlers.delete(entry);
        if (own.handlers.size === 0 && channels.get(name) === own) channels.delete(name);
        throw err;
      }
      return async () => {
        if (!own.handlers.delete(entry)) return;
        if (own.handlers.size > 0 || channels.get(name) !== own) return;
        channels.delete(name);
        if (!closed) await subscriber.unsubscribe(name);
      };
    },

    async broadcastAndAwait(channel: string, message: string, timeoutMs: number) {
      const deadline = Date.now() + timeoutMs;
      const nonce = randomBytes(NONCE_LENGTH / 2).toString('hex');
      const ackKey = k.ack(nonce);
      const delivered = await commands.publish(k.channel(channel), encodeEnvelope(nonce, message));
      if (delivered === 0) return { delivered, acknowledged: 0 };
      const acknowledged = await awaitAcks(ackKey, delivered, deadline);
      // Late acknowledgements recreate the key with a TTL, so this delete is only tidiness.
      inBackground(commands.del(ackKey).catch((err: unknown) => log.warn({ err }, 'deleting an ack list failed')));
      return { delivered, acknowledged };
    },

    async rateLimit(accountId: string, limits: RateLimits, nowMs: number): Promise<RateLimitDecision> {
      assertLimits(limits);
      const minute = windowOf(nowMs, MINUTE_MS);
      const day = windowOf(nowMs, DAY_MS);
      // Auto-pipelining sends every check issued in the same tick as one write: under load the
      // checks of many requests share a round trip.
      const [admitted, minuteCount, dayCount] = await commands.batonRateLimit(
        k.rateMinute(accountId, minute.index),
        k.rateDay(accountId, day.index),
        limits.perMinute,
        limits.perDay,
        minute.ttlMs,
        day.ttlMs,
      );
      return decide(admitted === 1, minuteCount, dayCount, limits, nowMs);
    },

    acquireSlot: (accountId, holderId, limits, leaseMs, nowMs) => slots.acquire(accountId, holderId, limits, leaseMs, nowMs),
    releaseSlot: (accountId, holderId, leaseMs, nowMs) => slots.release(accountId, holderId, leaseMs, nowMs),
    renewSlots: (accountId, holderIds, leaseMs, nowMs) => slots.renew(accountId, holderIds, leaseMs, nowMs),
    slotState: (accountId, holderId, nowMs) => slots.state(accountId, holderId, nowMs),

    subscriptionHealthy: () => subscribed,

    onSubscriptionRestored(listener: () => void): void {
      restoredListeners.push(listener);
    },

    async appendEvent(stream: string, type: string, data: string, floorSeq = 0): Promise<StreamEvent> {
      const seq = await commands.batonEventAppend(
        k.eventSeq(stream),
        k.eventStream(stream),
        type,
        data,
        EVENT_STREAM_MAX_LEN,
        EVENT_STREAM_TTL_MS,
        floorSeq,
      );
      const event: StreamEvent = { seq, type, data };
      // The notice only wakes followers; one that misses it still reads the stream on the next.
      await commands.publish(k.channel(k.eventNotices(stream)), encodeEnvelope(null, JSON.stringify(event)));
      return event;
    },

    async readEvents(stream: string, afterSeq: number, limit: number): Promise<StreamEvent[]> {
      const entries = await commands.xrange(k.eventStream(stream), `${afterSeq + 1}-0`, '+', 'COUNT', limit);
      return entries.map(([id, fields]) => toStreamEvent(id, fields));
    },

    followEvents(stream: string, afterSeq: number, listener: (event: StreamEvent) => void) {
      return followEventsOf(api, stream, k.eventNotices(stream), afterSeq, listener, log);
    },

    async ping(): Promise<void> {
      await commands.ping();
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      channels.clear();
      for (const conn of openBlocking) conn.disconnect();
      openBlocking.clear();
      idleBlocking.length = 0;
      await Promise.allSettled(background);
      await Promise.allSettled([subscriber.quit(), commands.quit()]);
    },
  };
  return api;
}

/** An XRANGE entry (`<seq>-0`, [t, type, d, data]) as an event. */
function toStreamEvent(id: string, fields: string[]): StreamEvent {
  let type = '';
  let data = '';
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === 't') type = fields[i + 1]!;
    else if (fields[i] === 'd') data = fields[i + 1]!;
  }
  return { seq: Number(id.slice(0, id.indexOf('-'))), type, data };
}

/** Resolves to the promise's value, or to 'guard' if it has not settled within `ms`. */
function withGuard<T>(promise: Promise<T>, ms: number): Promise<T | 'guard'> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<'guard'>((resolve) => {
    timer = setTimeout(() => resolve('guard'), ms);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}
