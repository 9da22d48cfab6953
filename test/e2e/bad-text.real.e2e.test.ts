/**
 * Text Postgres cannot store (NUL, lone surrogates) in an id, a query value or a body string is
 * refused at the edge with 400 INVALID_REQUEST naming the field, against the real Postgres (where
 * it used to reach the store and answer 500). Skipped without DATABASE_URL and REDIS_URL.
 */
import t from 'tap';
import { api, createAccountWithKey, realServersAvailable, startServer, type ApiResponse } from '../helpers/server.js';

if (!realServersAvailable()) {
  t.pass('skipped: needs DATABASE_URL and REDIS_URL');
} else {
  const server = await startServer(t, { mode: 'real', workers: 1 });
  const { key } = await createAccountWithKey(server);

  /** Sends a JSON text as is, so escapes like \u0000 and \ud800 reach the server unchanged. */
  const raw = (method: string, path: string, text: string): Promise<ApiResponse> =>
    api(server, method, path, { key, body: text, headers: { 'content-type': 'application/json' } });

  const cases: [string, () => Promise<ApiResponse>, string][] = [
    ['a NUL in an execution id', () => api(server, 'GET', '/v1/executions/exec_%00x', { key }), 'id'],
    ['a NUL in an api key id', () => api(server, 'PATCH', '/v1/api-keys/key_%00', { key, body: { isActive: false } }), 'id'],
    ['a NUL in an agent id', () => api(server, 'GET', '/v1/agents/a%00b', { key }), 'id'],
    ['a NUL in a workflow slug', () => api(server, 'GET', '/v1/workflows/w%00', { key }), 'slug'],
    ['a NUL in a query value', () => api(server, 'GET', '/v1/agents?vertical=fin%00ance', { key }), 'vertical'],
    ['a NUL in a stored body string', () => raw('POST', '/v1/api-keys', '{"name":"key\\u0000","permissions":["*"]}'), 'name'],
    ['a lone surrogate in a stored body string', () => raw('POST', '/v1/api-keys', '{"name":"key\\ud800","permissions":["*"]}'), 'name'],
    ['a NUL in a nested context value', () => raw('POST', '/v1/orchestrate', '{"query":"summarise","context":{"doc":["ok","\\u0000"]}}'), 'context.doc.1'],
    ['a lone surrogate in a context key', () => raw('POST', '/v1/orchestrate', '{"query":"summarise","context":{"\\udc00":1}}'), 'context'],
    ['a NUL in an orchestration query', () => raw('POST', '/v1/orchestrate', '{"query":"sum\\u0000marise"}'), 'query'],
  ];

  for (const [name, send, field] of cases) {
    t.test(`${name} is 400 INVALID_REQUEST naming '${field}'`, async (t) => {
      const res = await send();
      t.equal(res.status, 400, res.text);
      t.equal(res.body.error, 'INVALID_REQUEST');
      t.equal(res.body.field, field);
    });
  }

  t.test('ordinary Unicode (pairs, accents) is still accepted', async (t) => {
    const res = await raw('POST', '/v1/api-keys', '{"name":"clé 😀","permissions":["*"]}');
    t.equal(res.status, 201, res.text);
    t.equal(res.body.name, "clé 😀");
  });

  t.test('nothing on the way answered 500', async (t) => {
    const health = await api(server, 'GET', '/health');
    t.equal(health.status, 200);
    t.notMatch(server.output(), /"level":50/, 'no error was logged');
  });
}
