/**
 * HTTP/1.1 framing at the edge: conflicting Content-Length values (400, RFC 9112 §6.3), a chunked
 * upload over the body limit (413 read by the client, not a reset), and the pinned uWebSockets.js
 * transport defects that deploy/nginx.conf and deploy/haproxy.cfg work around (README "Deployment
 * files"): if one of these starts passing, the defect is fixed and the workaround can go.
 */
import net from 'node:net';
import t from 'tap';
import { api, createAccountWithKey, startServer } from '../helpers/server.js';
import { rawExchange } from '../helpers/raw-http.js';

const server = await startServer(t, { mode: 'embedded', env: { BATON_MAX_BODY_BYTES: '4096', BATON_BODY_TIMEOUT_MS: '5000' } });
const { key } = await createAccountWithKey(server);

/** Sends `parts` on one connection with a pause between them (separate TCP segments); returns what came back. */
function segmented(parts: string[], pauseMs = 150, waitMs = 1_500): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(server.port, '127.0.0.1');
    socket.setNoDelay(true);
    let received = '';
    socket.on('data', (c: Buffer) => (received += c.toString()));
    const finish = (): void => {
      socket.destroy();
      resolve(received);
    };
    socket.on('error', finish);
    socket.on('connect', async () => {
      for (const part of parts) {
        socket.write(part);
        await new Promise((r) => setTimeout(r, pauseMs));
      }
      setTimeout(finish, waitMs);
    });
  });
}

t.test('two different Content-Length values: 400 and close, or a dropped connection; never a smuggled request', async (t) => {
  const body = '{"name":"k","permissions":["*"]}';
  const head = (lengths: number[], tail = ''): string =>
    `POST /v1/api-keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n`
    + lengths.map((n) => `Content-Length: ${n}\r\n`).join('') + '\r\n' + body + tail;
  const longerFirst = await rawExchange(server.port, head([body.length + 20, 3], 'GET /health HTTP/1.1\r\n\r\n'));
  t.match(longerFirst, /^HTTP\/1\.1 400 /, 'first value the larger: 400');
  t.match(longerFirst, /"field":"Content-Length"/);
  t.notMatch(longerFirst, /HTTP\/1\.1 200/, 'the bytes after the body were not run as a request');
  const smuggled = await rawExchange(server.port, head([3, body.length], 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n'));
  t.equal(smuggled, '', 'first value the smaller: the connection is dropped before anything in the body tail runs');
  const list = await rawExchange(server.port, `GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 0\r\n\r\nhello`);
  t.match(list, /^HTTP\/1\.1 400 /, 'a comma list of different values');
  const same = await rawExchange(server.port, `GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n`);
  t.match(same, /^HTTP\/1\.1 200 /, 'identical repeats are allowed (RFC 9110 §8.6)');
});

t.test('a chunked upload far over the body limit is answered 413, not reset', async (t) => {
  const blocks = 200; // 12.8 MB against a 4 KiB limit
  const res = await fetch(`${server.url}/v1/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: new ReadableStream({
      start(controller) {
        for (let i = 0; i < blocks; i++) controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
        controller.close();
      },
    }),
    duplex: 'half',
  } as RequestInit);
  t.equal(res.status, 413);
  t.equal(((await res.json()) as { error: string }).error, 'PAYLOAD_TOO_LARGE');
  const health = await api(server, 'GET', '/health');
  t.equal(health.status, 200);
});

t.test('pinned transport defects of uWebSockets.js v20.41.0 (worked around by deploy/ configs)', async (t) => {
  const whole = await rawExchange(server.port, 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
  t.match(whole, /^HTTP\/1\.1 200 /, 'a request line in one segment works');
  const split = await segmented(['GET /hea', 'lth HTTP/1.1\r\nHost: x\r\n\r\n']);
  t.match(split, /^HTTP\/1\.1 505 /, 'a request line split across TCP segments gets 505 (upstream #1776)');
  const headersSplit = await segmented(['GET /health HTTP/1.1\r\nHo', 'st: x\r\n\r\n']);
  t.match(headersSplit, /^HTTP\/1\.1 200 /, 'a split after the request line is fine');
  const http10 = await rawExchange(server.port, 'GET /health HTTP/1.0\r\nHost: x\r\n\r\n');
  t.match(http10, /^HTTP\/1\.1 505 /, 'HTTP/1.0 gets 505: proxies must speak HTTP/1.1 upstream');
});
