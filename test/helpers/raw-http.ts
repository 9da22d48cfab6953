/**
 * Low-level HTTP for tests that need what fetch hides: a fresh connection per request (to land
 * on different workers), raw bytes (invalid UTF-8), and a slow or truncated body.
 */
import http from 'node:http';
import net from 'node:net';

export interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
}

/** One request on its own connection (no keep-alive), so SO_REUSEPORT may pick any worker. */
export function freshRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: Buffer | string,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Writes raw bytes on a socket and returns whatever the server sent back before closing or `waitMs`. */
export function rawExchange(port: number, payload: Buffer | string, waitMs = 2_000): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(received);
    };
    const timer = setTimeout(done, waitMs);
    socket.on('data', (c: Buffer) => (received += c.toString()));
    socket.on('close', done);
    socket.on('error', done);
    socket.write(payload);
  });
}
