/** Small undici helpers the compared systems share: JSON calls and reading an event stream. */
import { Pool } from 'undici';

export type Json = Record<string, unknown>;

export class HttpClient {
  private readonly pool: Pool;

  constructor(readonly origin: string, private readonly headers: Readonly<Record<string, string>> = {}) {
    // Enough sockets for every virtual user plus the streams they hold open.
    this.pool = new Pool(origin, { connections: 256, pipelining: 1 });
  }

  async json(method: 'GET' | 'POST', path: string, body?: unknown, expect: readonly number[] = [200, 201, 202]): Promise<Json> {
    const res = await this.pool.request({
      method,
      path,
      headers: { ...this.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.body.text();
    if (!expect.includes(res.statusCode)) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
    return text === '' ? {} : (JSON.parse(text) as Json);
  }

  /**
   * Opens a streaming request and calls `onText` with each decoded piece until it returns true
   * (the flow saw what it waited for) or the body ends.
   */
  async stream(method: 'GET' | 'POST', path: string, body: unknown, onText: (text: string) => boolean | Promise<boolean>): Promise<void> {
    const res = await this.pool.request({
      method,
      path,
      headers: { ...this.headers, accept: 'text/event-stream', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (res.statusCode !== 200) throw new Error(`${method} ${path}: ${res.statusCode} ${(await res.body.text()).slice(0, 200)}`);
    res.body.setEncoding('utf8');
    for await (const piece of res.body as AsyncIterable<string>) {
      if (await onText(piece)) {
        res.body.destroy();
        return;
      }
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
