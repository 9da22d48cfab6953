/**
 * The one place Redis key and channel names are built. Everything Baton stores or publishes in
 * Redis starts with the configured prefix, so several deployments (or test runs) can share a
 * server without seeing each other.
 */

export interface RedisKeys {
  readonly prefix: string;
  /** Pub/sub channel for a logical channel name, e.g. `channel('auth')`. */
  channel(name: string): string;
  /** Pattern matching every Baton channel, for tooling and tests. */
  readonly channelPattern: string;
  /** List collecting acknowledgements of one broadcast. */
  ack(nonce: string): string;
  /**
   * Request counters of one account for one fixed window (window number since the epoch). The
   * account id is a hash tag, so both windows of an account live in one Redis Cluster slot and
   * one script can touch both.
   */
  rateMinute(accountId: string, minuteIndex: number): string;
  rateDay(accountId: string, dayIndex: number): string;
  /**
   * An event stream (a Redis Stream) and its sequence counter. The stream name is a hash tag, so
   * both keys share a Redis Cluster slot and one script can touch both.
   */
  eventStream(stream: string): string;
  eventSeq(stream: string): string;
  /** Logical channel (for `channel()`) announcing appends to one event stream. */
  eventNotices(stream: string): string;
  /**
   * Concurrency of one account: its slot holders (sorted set, score = lease end), its FIFO queue
   * (sorted set, score = arrival number) and a hash with the arrival counter and the concurrent
   * limit. The account id is a hash tag, so one script can touch all three in Redis Cluster.
   */
  slots(accountId: string): string;
  slotQueue(accountId: string): string;
  slotMeta(accountId: string): string;
}

export function keys(prefix: string): RedisKeys {
  const channelPrefix = `${prefix}ch:`;
  const ackPrefix = `${prefix}ack:`;
  const ratePrefix = `${prefix}rl:{`;
  return {
    prefix,
    channel: (name) => channelPrefix + name,
    channelPattern: `${channelPrefix}*`,
    ack: (nonce) => ackPrefix + nonce,
    rateMinute: (accountId, minuteIndex) => `${ratePrefix}${accountId}}:m:${minuteIndex}`,
    rateDay: (accountId, dayIndex) => `${ratePrefix}${accountId}}:d:${dayIndex}`,
    eventStream: (stream) => `${prefix}ev:{${stream}}:s`,
    eventSeq: (stream) => `${prefix}ev:{${stream}}:n`,
    eventNotices: (stream) => `events:${stream}`,
    slots: (accountId) => `${prefix}cq:{${accountId}}:slots`,
    slotQueue: (accountId) => `${prefix}cq:{${accountId}}:queue`,
    slotMeta: (accountId) => `${prefix}cq:{${accountId}}:meta`,
  };
}
