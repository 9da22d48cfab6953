/**
 * A test SSE client over node:http: collects events (id, event, parsed data) and comments as they
 * arrive, on its own connection (so with several workers any of them may serve it).
 */
import http from 'node:http';

export interface ReceivedEvent {
  readonly id: number | null;
  readonly event: string;
  readonly data: Record<string, unknown>;
}

export interface SseClient {
  readonly status: Promise<number>;
  readonly events: ReceivedEvent[];
  readonly comments: string[];
  /** Resolves when the server ends the stream (or the connection breaks). */
  readonly ended: Promise<void>;
  /** Resolves once `count` events arrived; rejects after `timeoutMs`. */
  waitFor(predicate: (events: readonly ReceivedEvent[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

export function openSse(port: number, path: string, key: string, headers: Record<string, string> = {}): SseClient {
  const events: ReceivedEvent[] = [];
  const comments: string[] = [];
  let resolveStatus!: (status: number) => void;
  let resolveEnded!: () => void;
  const status = new Promise<number>((resolve) => (resolveStatus = resolve));
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
  const waiters = new Set<() => void>();
  const req = http.request(
    { host: '127.0.0.1', port, path, method: 'GET', agent: false, headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream', ...headers } },
    (res) => {
      resolveStatus(res.statusCode ?? 0);
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (text: string) => {
        buffer += text;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let id: number | null = null;
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) id = Number(line.slice(4));
            else if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length > 0) events.push({ id, event, data: JSON.parse(data.join('\n')) as Record<string, unknown> });
          for (const wake of [...waiters]) wake();
        }
      });
      res.on('end', () => resolveEnded());
      res.on('close', () => resolveEnded());
    },
  );
  req.on('error', () => {
    resolveStatus(0);
    resolveEnded();
  });
  req.end();
  return {
    status,
    events,
    comments,
    ended,
    waitFor(predicate, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (!predicate(events)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out; events so far: ${events.map((e) => `${e.id}:${e.event}`).join(', ')}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => req.destroy(),
  };
}
