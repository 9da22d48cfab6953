/**
 * Registration against a server that enforces the outbound URL policy (BATON_ALLOW_PRIVATE_URLS
 * false, as in production): loopback, private and plain-http agent URLs are refused up front.
 */
import t from 'tap';
import { startMockAgent } from '../fixtures/mock-agent-fleet.js';
import { ADMIN_TOKEN, api, startServer } from '../helpers/server.js';

const server = await startServer(t, { mode: 'embedded', env: { BATON_ALLOW_PRIVATE_URLS: 'false' } });
const agent = await startMockAgent();
t.teardown(() => agent.close());

const body = (url: string) => ({
  id: 'policy-agent',
  name: 'Policy Agent',
  description: 'An agent on a private address',
  url,
  vertical: 'test',
  capabilities: ['echo'],
  pricing: { model: 'per_execution', basePrice: 0 },
});

t.test('a loopback agent URL is 400 URL_NOT_ALLOWED when private URLs are disallowed', async (t) => {
  const res = await api(server, 'POST', '/v1/agents', { key: ADMIN_TOKEN, body: body(agent.url) });
  t.equal(res.status, 400);
  t.equal(res.body.error, 'URL_NOT_ALLOWED');
  t.equal(res.body.field, 'url');
  t.equal(agent.requests.length, 0, 'the agent was never contacted');
});

t.test('private-range and metadata addresses are refused too, naming the rule', async (t) => {
  for (const url of ['https://10.0.0.5', 'https://169.254.169.254', 'https://192.168.1.1:8443']) {
    const res = await api(server, 'POST', '/v1/agents', { key: ADMIN_TOKEN, body: body(url) });
    t.equal(res.status, 400, url);
    t.equal(res.body.error, 'URL_NOT_ALLOWED');
    t.type(res.body.reason, 'string');
  }
});
