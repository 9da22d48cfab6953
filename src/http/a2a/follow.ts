/**
 * A run's event log as an async iterator, through the same feed as the SSE route
 * (WorkflowsService.openStream): replay from a sequence number, then live events, ending after
 * `done`. The feed writes into this sink; the iterator reads from it. Aborting the signal
 * (the A2A client went away) closes the sink, which stops following.
 */
import type { SseEvent, SseSink } from '../../ports/event-sink.js';
import type { WorkflowsService } from '../../services/workflows/service.js';

/** Events waiting to be read; a consumer this far behind is cut off (it can resubscribe). */
const MAX_QUEUED_EVENTS = 10_000;

class QueueSink implements SseSink {
  #queue: SseEvent[] = [];
  #waiting: (() => void) | null = null;
  #ended = false;
  #closed = false;
  #listeners: Array<() => void> = [];

  get closed(): boolean {
    return this.#closed;
  }

  get bufferedBytes(): number {
    return 0;
  }

  send(event: SseEvent): boolean {
    if (this.#closed || this.#ended) return false;
    if (this.#queue.length >= MAX_QUEUED_EVENTS) {
      this.close();
      return false;
    }
    this.#queue.push(event);
    this.#wake();
    return true;
  }

  comment(): boolean {
    return !this.#closed;
  }

  end(): void {
    this.#ended = true;
    this.#wake();
  }

  onClose(listener: () => void): void {
    if (this.#closed) listener();
    else this.#listeners.push(listener);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#wake();
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }

  /** The next event, or null once the feed ended (and everything was read) or the sink closed. */
  async next(): Promise<SseEvent | null> {
    for (;;) {
      if (this.#closed) return null;
      const event = this.#queue.shift();
      if (event !== undefined) return event;
      if (this.#ended) return null;
      await new Promise<void>((resolve) => (this.#waiting = resolve));
    }
  }

  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = null;
    waiting?.();
  }
}

export async function* followRun(workflows: WorkflowsService, accountId: string, executionId: string, afterSeq: number, signal: AbortSignal): AsyncGenerator<SseEvent> {
  const start = await workflows.openStream(accountId, executionId, String(afterSeq));
  const sink = new QueueSink();
  const onAbort = (): void => sink.close();
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) sink.close();
  start(sink);
  try {
    for (;;) {
      const event = await sink.next();
      if (event === null) return;
      yield event;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    // Stops following the log when the consumer stops early (a final update, or the client left).
    sink.close();
  }
}
