/**
 * Fakes of uWS's HttpRequest and HttpResponse for driving a route handler in process, with the
 * rules of the real ones that matter to a handler: the request is readable only during the
 * synchronous call, an aborted response throws on any use (as uWS does), and the client is
 * played by `send` (a body chunk) and `abort` (it goes away; throws if onAborted was never set).
 */
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';

export interface FakeRequestInit {
  readonly method?: string;
  readonly url: string;
  readonly query?: string;
  /** Lower-case names. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly params?: readonly string[];
}

export interface WrittenResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly closed: boolean;
}

export class FakeRequest {
  #valid = true;
  constructor(readonly init: FakeRequestInit) {}

  /** uWS frees the request once the handler returns. */
  invalidate(): void {
    this.#valid = false;
  }

  #check(): void {
    if (!this.#valid) throw new Error('uWS.HttpRequest used after the handler returned');
  }

  getHeader(name: string): string {
    this.#check();
    return this.init.headers?.[name] ?? '';
  }
  getParameter(index: number): string | undefined {
    this.#check();
    return this.init.params?.[index];
  }
  getUrl(): string {
    this.#check();
    return this.init.url;
  }
  getQuery(): string {
    this.#check();
    return this.init.query ?? '';
  }
  getMethod(): string {
    this.#check();
    return (this.init.method ?? 'get').toLowerCase();
  }
  forEach(cb: (name: string, value: string) => void): void {
    this.#check();
    for (const [name, value] of Object.entries(this.init.headers ?? {})) cb(name, value);
  }
}

export class FakeResponse {
  /** The response as the client received it; null while nothing was sent. */
  written: WrittenResponse | null = null;
  /** Calls made on the response after the client went away (uWS would have thrown). */
  readonly misuse: string[] = [];
  #aborted = false;
  #onAborted: (() => void) | null = null;
  #onData: ((chunk: ArrayBuffer, isLast: boolean) => void) | null = null;
  #status = 0;
  #headers: Record<string, string> = {};
  #corked = false;

  get hasAbortHandler(): boolean {
    return this.#onAborted !== null;
  }

  /** The client sends a body chunk. */
  send(text: string, isLast: boolean): void {
    const bytes = Buffer.from(text);
    // uWS hands out a view of its own buffer; a copy keeps the fake from sharing memory.
    this.#onData?.(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, isLast);
  }

  /** The client goes away. */
  abort(): void {
    if (this.#onAborted === null) throw new Error('the client went away before onAborted was registered (uWS would crash)');
    this.#aborted = true;
    this.#onAborted();
  }

  #use(what: string): void {
    if (this.#aborted) {
      this.misuse.push(what);
      throw new Error(`uWS.HttpResponse used after abort (${what})`);
    }
  }

  onAborted(handler: () => void): this {
    this.#onAborted = handler;
    return this;
  }
  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): this {
    this.#use('onData');
    this.#onData = handler;
    return this;
  }
  getRemoteAddressAsText(): ArrayBuffer {
    return new TextEncoder().encode('203.0.113.9').buffer as ArrayBuffer;
  }
  cork(cb: () => void): this {
    this.#use('cork');
    this.#corked = true;
    try {
      cb();
    } finally {
      this.#corked = false;
    }
    return this;
  }
  writeStatus(status: string): this {
    this.#use('writeStatus');
    this.#requireCork('writeStatus');
    this.#status = Number(status.split(' ', 1)[0]);
    return this;
  }
  writeHeader(name: string, value: string): this {
    this.#use('writeHeader');
    this.#requireCork('writeHeader');
    this.#headers[name] = value;
    return this;
  }
  end(body: string | Uint8Array = '', closeConnection = false): this {
    this.#use('end');
    this.#requireCork('end');
    this.written = { status: this.#status || 200, headers: { ...this.#headers }, body: typeof body === 'string' ? body : Buffer.from(body).toString(), closed: closeConnection };
    return this;
  }
  close(): this {
    this.written = { status: 0, headers: {}, body: '', closed: true };
    return this;
  }

  /** Writes made after an await must be corked; a write outside cork is recorded as misuse. */
  #requireCork(what: string): void {
    if (!this.#corked) this.misuse.push(`${what} outside cork`);
  }
}

/** Calls `handler` as uWS does: the request is only valid during the call. */
export function callHandler(handler: (res: HttpResponse, req: HttpRequest) => void, init: FakeRequestInit): FakeResponse {
  const req = new FakeRequest(init);
  const res = new FakeResponse();
  handler(res as unknown as HttpResponse, req as unknown as HttpRequest);
  req.invalidate();
  return res;
}
