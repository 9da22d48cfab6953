/**
 * Server-Sent Events over a uWS response, with backpressure: when `write()` reports
 * backpressure we queue (bounded by `maxBufferedBytes`) and drain on `onWritable`; a subscriber
 * that falls further behind is closed, and can resume with Last-Event-ID.
 */
import type { SseEvent, SseSink } from '../ports/event-sink.js';
import type { HttpResponse } from 'uWebSockets.js';



export function formatEvent(event: SseEvent): string {
  let out = event.id === undefined ? '' : `id: ${event.id}\n`;
  out += `event: ${event.event}\n`;
  for (const line of event.data.split('\n')) out += `data: ${line}\n`;
  return `${out}\n`;
}

export class UwsSseSink implements SseSink {
  #res: HttpResponse;
  #queue: string[] = [];
  #queuedBytes = 0;
  #closed = false;
  #ending = false;
  #listeners: Array<() => void> = [];
  readonly #maxBufferedBytes: number;

  /** `res` must already have its status and headers written and `onAborted` registered. */
  constructor(res: HttpResponse, maxBufferedBytes: number) {
    this.#res = res;
    this.#maxBufferedBytes = maxBufferedBytes;
    res.onWritable(() => this.#drain());
  }

  get closed(): boolean {
    return this.#closed;
  }

  get bufferedBytes(): number {
    return this.#queuedBytes;
  }

  send(event: SseEvent): boolean {
    return this.#write(formatEvent(event));
  }

  comment(text: string): boolean {
    return this.#write(`: ${text}\n\n`);
  }

  end(): void {
    if (this.#closed) return;
    this.#ending = true;
    if (this.#queue.length === 0) this.#finish();
  }

  onClose(listener: () => void): void {
    if (this.#closed) listener();
    else this.#listeners.push(listener);
  }

  /** Called by the HTTP layer when the client disconnects. */
  aborted(): void {
    this.#markClosed();
  }

  #write(chunk: string): boolean {
    if (this.#closed || this.#ending) return false;
    if (this.#queue.length > 0) return this.#enqueue(chunk);
    let ok = false;
    this.#res.cork(() => {
      ok = this.#res.write(chunk);
    });
    // uWS keeps what it could not send; further writes wait for onWritable in our queue.
    if (!ok) this.#queue.push('');
    return true;
  }

  #enqueue(chunk: string): boolean {
    this.#queue.push(chunk);
    this.#queuedBytes += Buffer.byteLength(chunk);
    if (this.#queuedBytes > this.#maxBufferedBytes) {
      // Too far behind: close rather than buffer without bound; the client resumes by id.
      this.#queue = [];
      this.#queuedBytes = 0;
      this.#res.cork(() => this.#res.close());
      this.#markClosed();
      return false;
    }
    return true;
  }

  #drain(): boolean {
    if (this.#closed) return true;
    while (this.#queue.length > 0) {
      const chunk = this.#queue[0]!;
      let ok = true;
      if (chunk !== '') {
        this.#res.cork(() => {
          ok = this.#res.write(chunk);
        });
        this.#queuedBytes -= Buffer.byteLength(chunk);
      }
      this.#queue.shift();
      if (!ok) {
        this.#queue.unshift('');
        return false;
      }
    }
    if (this.#ending) this.#finish();
    return true;
  }

  #finish(): void {
    if (this.#closed) return;
    this.#res.cork(() => this.#res.end());
    this.#markClosed();
  }

  #markClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }
}
