/**
 * Following an event stream, shared by both Coordination adapters so they behave the same: a
 * subscriber is told of appends by a notice on a channel (carrying the event), and reads the
 * stream whenever a notice does not continue exactly where it is. Its cursor (the last sequence
 * delivered) is the only state, so nothing is delivered twice and nothing is skipped: the
 * subscription starts before the first read, so an append between the two is seen either way.
 */
import type { Coordination } from '../../../ports/coordination.js';
import type { StreamEvent } from '../../../domain/events.js';
import type { StoreLogger } from '../log.js';

export interface FollowSource {
  read(afterSeq: number, limit: number): Promise<StreamEvent[]>;
  /** Subscribes to append notices; each carries the appended event. */
  subscribe(onNotice: (event: StreamEvent) => void): Promise<() => Promise<void>>;
}

const PAGE = 500;
const RETRY_MS = 1_000;

/** Parses a notice published by `appendEvent`; null for anything else. */
export function parseNotice(message: string): StreamEvent | null {
  try {
    const value: unknown = JSON.parse(message);
    if (typeof value !== 'object' || value === null) return null;
    const { seq, type, data } = value as Record<string, unknown>;
    if (typeof seq !== 'number' || typeof type !== 'string' || typeof data !== 'string') return null;
    return { seq, type, data };
  } catch {
    return null;
  }
}

/**
 * `followEvents` of a Coordination adapter, given its own `readEvents` and `subscribe` and the
 * channel that carries the stream's append notices.
 */
export function followEventsOf(
  adapter: Pick<Coordination, 'readEvents' | 'subscribe'>,
  stream: string,
  noticeChannel: string,
  afterSeq: number,
  listener: (event: StreamEvent) => void,
  log: StoreLogger,
): Promise<() => Promise<void>> {
  return followStream(
    {
      read: (after, limit) => adapter.readEvents(stream, after, limit),
      subscribe: (onNotice) =>
        adapter.subscribe(noticeChannel, (message) => {
          const event = parseNotice(message);
          if (event !== null) onNotice(event);
        }),
    },
    afterSeq,
    listener,
    log,
  );
}

export async function followStream(
  source: FollowSource,
  afterSeq: number,
  listener: (event: StreamEvent) => void,
  log: StoreLogger,
): Promise<() => Promise<void>> {
  let cursor = afterSeq;
  let stopped = false;
  let pulling = false;
  let again = false;
  let retry: NodeJS.Timeout | undefined;

  const deliver = (event: StreamEvent): void => {
    cursor = event.seq;
    try {
      listener(event);
    } catch (err) {
      log.error({ err }, 'event stream listener failed');
    }
  };

  async function pull(): Promise<void> {
    if (pulling) {
      again = true;
      return;
    }
    pulling = true;
    try {
      do {
        again = false;
        for (;;) {
          const batch = await source.read(cursor, PAGE);
          if (stopped) return;
          // Sequences only grow, but a trimmed stream may skip some: deliver what is there.
          for (const event of batch) if (event.seq > cursor && !stopped) deliver(event);
          if (batch.length < PAGE) break;
        }
      } while (again && !stopped);
    } catch (err) {
      log.warn({ err }, 'reading an event stream failed; retrying');
      if (!stopped) retry = setTimeout(() => void pull(), RETRY_MS);
    } finally {
      pulling = false;
    }
  }

  const unsubscribe = await source.subscribe((event) => {
    if (stopped || event.seq <= cursor) return;
    // The common case costs no read: the notice is the next event.
    if (!pulling && event.seq === cursor + 1) deliver(event);
    else void pull();
  });
  await pull();
  return async () => {
    if (stopped) return;
    stopped = true;
    clearTimeout(retry);
    await unsubscribe();
  };
}
