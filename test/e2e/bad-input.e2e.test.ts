/**
 * Bad input never crashes a worker: unknown routes and methods, wrong content types, malformed
 * and oversized bodies, invalid UTF-8, absurd nesting, slow clients, and fuzzed bodies. After
 * each, the server still answers.
 */
import fc from 'fast-check';
import t, { type Test } from 'tap';
import { api, createAccountWithKey, startServer } from '../helpers/server.js';
import { freshRequest, rawExchange } from '../helpers/raw-http.js';

const server = await startServer(t, {
  mode: 'embedded',
  env: { BATON_MAX_BODY_BYTES: '4096', BATON_BODY_TIMEOUT_MS: '500' },
});
const { key } = await createAccountWithKey(server);
const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

async function stillHealthy(t: Test): Promise<void> {
  const res = await api(server, 'GET', '/health');
  t.equal(res.status, 200, 'server still answers');
}

t.test('an unknown route is a JSON 404 NOT_FOUND', async (t) => {
  const res = await api(server, 'GET', '/v1/nothing-here', { key });
  t.equal(res.status, 404);
  t.equal(res.body.error, 'NOT_FOUND');
  t.match(res.headers.get('x-request-id'), /^req_/);
});

t.test('a known path with the wrong method is 405 with Allow', async (t) => {
  const res = await api(server, 'PUT', '/v1/api-keys', { key, body: {} });
  t.equal(res.status, 405);
  t.equal(res.body.error, 'METHOD_NOT_ALLOWED');
  t.equal(res.headers.get('allow'), 'GET, POST');
});

t.test('a body that is not JSON by content type is 415', async (t) => {
  const res = await api(server, 'POST', '/v1/api-keys', { key, body: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.equal(res.status, 415);
  t.equal(res.body.error, 'UNSUPPORTED_MEDIA_TYPE');
  await stillHealthy(t);
});

t.test('malformed JSON is 400 INVALID_REQUEST naming the problem', async (t) => {
  const res = await api(server, 'POST', '/v1/api-keys', { key, body: '{"name": "x",' });
  t.equal(res.status, 400);
  t.equal(res.body.error, 'INVALID_REQUEST');
  t.match(res.body.message, /not valid JSON/);
});

t.test('a schema violation names the dotted field', async (t) => {
  const missing = await api(server, 'POST', '/v1/api-keys', { key, body: { name: 'x' } });
  t.equal(missing.status, 400);
  t.equal(missing.body.field, 'permissions');
  const wrongType = await api(server, 'PATCH', '/v1/api-keys/key_x', { key, body: { isActive: 'yes' } });
  t.equal(wrongType.status, 400);
  t.equal(wrongType.body.field, 'isActive');
  const extra = await api(server, 'POST', '/v1/accounts', { key, body: { name: 'x', tier: 'DEVELOPER' } });
  t.equal(extra.status, 403, 'authorization is decided before the body is examined');
});

t.test('a body over the limit is 413, declared or chunked', async (t) => {
  const big = JSON.stringify({ name: 'x'.repeat(10_000), permissions: ['*'] });
  const declared = await freshRequest(server.port, 'POST', '/v1/api-keys', auth, big);
  t.equal(declared.status, 413);
  t.equal(JSON.parse(declared.text).error, 'PAYLOAD_TOO_LARGE');
  const chunked = await freshRequest(server.port, 'POST', '/v1/api-keys', { ...auth, 'transfer-encoding': 'chunked' }, big);
  t.equal(chunked.status, 413);
  await stillHealthy(t);
});

t.test('invalid UTF-8 is 400', async (t) => {
  const body = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('","permissions":["*"]}')]);
  const res = await freshRequest(server.port, 'POST', '/v1/api-keys', auth, body);
  t.equal(res.status, 400);
  t.match(JSON.parse(res.text).message, /UTF-8/);
});

t.test('absurd nesting is refused without harm', async (t) => {
  const deep = '['.repeat(2000) + ']'.repeat(2000);
  const res = await freshRequest(server.port, 'POST', '/v1/api-keys', auth, `{"name":"x","permissions":${deep}}`);
  t.equal(res.status, 400);
  await stillHealthy(t);
});

t.test('a client that sends its body too slowly gets 408 and the connection closes', async (t) => {
  const head = `POST /v1/api-keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na`;
  const reply = await rawExchange(server.port, head, 3_000);
  t.match(reply, /^HTTP\/1\.1 408/);
  t.match(reply, /REQUEST_TIMEOUT/);
  await stillHealthy(t);
});

t.test('a truncated request followed by a hang-up does not disturb the server', async (t) => {
  await rawExchange(server.port, 'POST /v1/api-keys HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{', 100);
  await rawExchange(server.port, 'GARBAGE\r\n\r\n', 300);
  await stillHealthy(t);
});

t.test('fuzzed bodies never produce a 5xx', async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(fc.json(), fc.string(), fc.jsonValue().map((v) => JSON.stringify({ name: 'f', permissions: v }))), async (body) => {
      const res = await api(server, 'POST', '/v1/api-keys', { key, body: typeof body === 'string' ? body : JSON.stringify(body) });
      return res.status < 500;
    }),
    { numRuns: 150 },
  );
  await stillHealthy(t);
});
