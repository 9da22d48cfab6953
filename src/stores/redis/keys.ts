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
}

export function keys(prefix: string): RedisKeys {
  const channelPrefix = `${prefix}ch:`;
  const ackPrefix = `${prefix}ack:`;
  return {
    prefix,
    channel: (name) => channelPrefix + name,
    channelPattern: `${channelPrefix}*`,
    ack: (nonce) => ackPrefix + nonce,
  };
}
