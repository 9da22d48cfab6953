/**
 * Agent registry and selection preview end to end, over real sockets against a spawned server
 * in embedded mode and mock agents on 127.0.0.1 (BATON_ALLOW_PRIVATE_URLS=true).
 */
import t from 'tap';
import { startMockAgent, startMockAgentFleet, type MockAgent, type MockAgentInfo } from '../fixtures/mock-agent-fleet.js';
import { ADMIN_TOKEN, api, createAccountWithKey, startServer, type ApiResponse } from '../helpers/server.js';

const server = await startServer(t, { mode: 'embedded' });
const fleet = await startMockAgentFleet([{}, { health: 'unhealthy' }, { refuseAfterStart: true }, {}]);
t.teardown(() => fleet.close());
const healthy: MockAgent = fleet.agent(0);

let counter = 0;
function body(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    id: `agent-${counter}-${process.pid}`,
    name: 'Invoice Parser',
    description: 'Reads supplier invoices and returns line items, totals and due dates as JSON.',
    url: healthy.url,
    vertical: 'finance',
    capabilities: ['invoice-extraction', 'ocr'],
    pricing: { model: 'per_execution', basePrice: 0.04 },
    ...overrides,
  };
}

// ENTERPRISE: its default rate limits leave room for every request these tests make.
const account = () => createAccountWithKey(server, 'ENTERPRISE');

t.test('an account registers an agent that answers /health and /info and gets the record back', async (t) => {
  const { key } = await account();
  const b = body({ timeoutMs: 5000 });
  const res = await api(server, 'POST', '/v1/agents', { key, body: b });
  t.equal(res.status, 201, res.text);
  t.match(res.body, {
    id: b.id,
    name: 'Invoice Parser',
    vertical: 'finance',
    capabilities: ['invoice-extraction', 'ocr'],
    pricing: { model: 'per_execution', basePrice: 0.04 },
    scope: 'account',
    url: healthy.url,
    timeoutMs: 5000,
    maxConcurrency: 16,
  });
  const got = await api(server, 'GET', `/v1/agents/${b.id as string}`, { key });
  t.equal(got.status, 200);
  t.equal(got.body.maxConcurrency, 16, 'the default cap, shown to its owner');
  const patched = await api(server, 'PATCH', `/v1/agents/${b.id as string}`, { key, body: { maxConcurrency: 250 } });
  t.equal(patched.status, 200, patched.text);
  t.equal(patched.body.maxConcurrency, 250);
  t.equal((await api(server, 'GET', `/v1/agents/${b.id as string}`, { key })).body.maxConcurrency, 250);
  const custom = body({ maxConcurrency: 3 });
  t.equal((await api(server, 'POST', '/v1/agents', { key, body: custom })).body.maxConcurrency, 3, 'set at registration');
  t.equal((got.body.status as Record<string, unknown>).healthy, true);
  t.equal((got.body.status as Record<string, unknown>).circuit, 'closed');
});

t.test('a registered agent is selectable at once', async (t) => {
  const { key } = await account();
  const b = body({ name: 'Tide Chart Oracle', description: 'Predicts ocean tides for harbours.', capabilities: ['tide-prediction'], vertical: 'marine' });
  t.equal((await api(server, 'POST', '/v1/agents', { key, body: b })).status, 201);
  const preview = await api(server, 'POST', '/v1/agents/selection-preview', { key, body: { query: 'predict the tides in the harbour tomorrow' } });
  t.equal(preview.status, 200, preview.text);
  const selected = preview.body.selected as Array<Record<string, unknown>>;
  t.equal(selected[0]?.id, b.id);
  const candidate = (preview.body.candidates as Array<Record<string, unknown>>)[0] ?? {};
  t.same(Object.keys(candidate).sort(), [
    'confidence', 'id', 'matches', 'name', 'reasons', 'relevance', 'reliability', 'selected', 'signals', 'status', 'vertical',
  ], 'a candidate carries its explanation, not the stored record (URL, owner, internal units)');
});

t.test('an agent whose /health says unhealthy is refused with 422 naming the health probe', async (t) => {
  const { key } = await account();
  const res = await api(server, 'POST', '/v1/agents', { key, body: body({ url: fleet.agent(1).url }) });
  t.equal(res.status, 422);
  t.equal(res.body.error, 'AGENT_UNREACHABLE');
  t.equal(res.body.probe, 'health');
  t.equal(res.body.reason, 'unhealthy');
});

t.test('an agent that refuses connections is refused with 422 naming the probe and the cause', async (t) => {
  const { key } = await account();
  const res = await api(server, 'POST', '/v1/agents', { key, body: body({ url: fleet.agent(2).url }) });
  t.equal(res.status, 422);
  t.equal(res.body.error, 'AGENT_UNREACHABLE');
  t.equal(res.body.probe, 'health');
  t.equal(res.body.reason, 'refused');
  t.match(res.body.message, /\/health/);
});

t.test('a URL the policy refuses outright is 400 URL_NOT_ALLOWED', async (t) => {
  const { key } = await account();
  const res = await api(server, 'POST', '/v1/agents', { key, body: body({ url: 'ftp://agent.example.com' }) });
  t.equal(res.status, 400);
  t.equal(res.body.error, 'URL_NOT_ALLOWED');
  t.equal(res.body.field, 'url');
});

t.test('an invalid body is 400 INVALID_REQUEST naming the dotted field', async (t) => {
  const { key } = await account();
  const cases: Array<[Record<string, unknown>, string]> = [
    [body({ id: 'Not A Slug' }), 'id'],
    [body({ pricing: { model: 'per_execution', basePrice: -1 } }), 'pricing.basePrice'],
    [body({ timeoutMs: 500 }), 'timeoutMs'],
    [body({ maxConcurrency: 0 }), 'maxConcurrency'],
    [body({ maxConcurrency: 1001 }), 'maxConcurrency'],
    [body({ maxConcurrency: 2.5 }), 'maxConcurrency'],
    [body({ capabilities: 'ocr' }), 'capabilities'],
    [body({ extra: true }), 'extra'],
  ];
  for (const [b, field] of cases) {
    const res = await api(server, 'POST', '/v1/agents', { key, body: b });
    t.equal(res.status, 400, field);
    t.equal(res.body.error, 'INVALID_REQUEST');
    t.equal(res.body.field, field);
  }
});

t.test('a duplicate id is 409, including an account taking the id of a global agent', async (t) => {
  const { key } = await account();
  const b = body();
  t.equal((await api(server, 'POST', '/v1/agents', { key, body: b })).status, 201);
  const again = await api(server, 'POST', '/v1/agents', { key, body: b });
  t.equal(again.status, 409);
  t.equal(again.body.error, 'AGENT_ALREADY_EXISTS');
  const global = body();
  t.equal((await api(server, 'POST', '/v1/agents', { key: ADMIN_TOKEN, body: global })).status, 201);
  const shadow = await api(server, 'POST', '/v1/agents', { key, body: { ...global } });
  t.equal(shadow.status, 409);
  t.match(shadow.body.details, /global/);
});

t.test('global agents are visible to every account, private ones only to their owner', async (t) => {
  const a = await account();
  const b = await account();
  const global = body({ vertical: 'vis-test' });
  const mine = body({ vertical: 'vis-test' });
  t.equal((await api(server, 'POST', '/v1/agents', { key: ADMIN_TOKEN, body: global })).status, 201);
  t.equal((await api(server, 'POST', '/v1/agents', { key: a.key, body: mine })).status, 201);
  const listA = await api(server, 'GET', '/v1/agents?vertical=vis-test', { key: a.key });
  const listB = await api(server, 'GET', '/v1/agents?vertical=vis-test', { key: b.key });
  const ids = (res: typeof listA) => (res.body.agents as Array<Record<string, unknown>>).map((x) => x.id);
  t.same(ids(listA), [global.id, mine.id]);
  t.same(ids(listB), [global.id]);
  t.equal((await api(server, 'GET', `/v1/agents/${mine.id as string}`, { key: b.key })).status, 404);
  const globalSeenByA = (listA.body.agents as Array<Record<string, unknown>>)[0]!;
  t.equal(globalSeenByA.url, undefined, 'an account does not see the URL of an agent it does not own');
  t.equal(globalSeenByA.scope, 'global');
  const previewB = await api(server, 'POST', '/v1/agents/selection-preview', {
    key: b.key,
    body: { query: 'invoice line items', selectionCriteria: { verticals: ['vis-test'], minConfidence: 0 } },
  });
  const candidateIds = (previewB.body.candidates as Array<Record<string, unknown>>).map((c) => c.id);
  t.notOk(candidateIds.includes(mine.id), "another account's private agent never appears in a preview");
});

t.test('the list filters by capability and pages with an opaque cursor', async (t) => {
  const { key } = await account();
  const vertical = `paging-${process.pid}`;
  const made: string[] = [];
  for (let i = 0; i < 5; i++) {
    const b = body({ vertical, capabilities: i % 2 === 0 ? ['even-cap'] : ['odd-cap'] });
    made.push(b.id as string);
    t.equal((await api(server, 'POST', '/v1/agents', { key, body: b })).status, 201);
  }
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const res: ApiResponse = await api(server, 'GET', `/v1/agents?vertical=${vertical}&limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key });
    t.equal(res.status, 200);
    seen.push(...(res.body.agents as Array<Record<string, unknown>>).map((x) => x.id as string));
    cursor = res.body.nextCursor as string | null;
  } while (cursor !== null);
  t.same(seen, made);
  const even = await api(server, 'GET', `/v1/agents?vertical=${vertical}&capability=EVEN-CAP`, { key });
  t.same((even.body.agents as Array<Record<string, unknown>>).map((x) => x.id), [made[0], made[2], made[4]]);
  t.equal((await api(server, 'GET', '/v1/agents?limit=201', { key })).body.field, 'limit');
  t.equal((await api(server, 'GET', '/v1/agents?cursor=garbage', { key })).body.field, 'cursor');
});

t.test('only the owner may PATCH or DELETE an agent; the operator manages global ones', async (t) => {
  const a = await account();
  const b = await account();
  const mine = body();
  const global = body();
  await api(server, 'POST', '/v1/agents', { key: a.key, body: mine });
  await api(server, 'POST', '/v1/agents', { key: ADMIN_TOKEN, body: global });
  t.equal((await api(server, 'PATCH', `/v1/agents/${mine.id as string}`, { key: b.key, body: { name: 'x' } })).status, 404);
  t.equal((await api(server, 'DELETE', `/v1/agents/${mine.id as string}`, { key: b.key })).status, 404);
  const globalPatch = await api(server, 'PATCH', `/v1/agents/${global.id as string}`, { key: a.key, body: { name: 'x' } });
  t.equal(globalPatch.status, 403);
  t.equal(globalPatch.body.error, 'FORBIDDEN');
  const renamed = await api(server, 'PATCH', `/v1/agents/${mine.id as string}`, { key: a.key, body: { name: 'Renamed', pricing: { model: 'per_execution', basePrice: 0.1 } } });
  t.equal(renamed.status, 200);
  t.equal(renamed.body.name, 'Renamed');
  t.same(renamed.body.pricing, { model: 'per_execution', basePrice: 0.1 });
  t.equal((await api(server, 'PATCH', `/v1/agents/${global.id as string}`, { key: ADMIN_TOKEN, body: { name: 'Op' } })).status, 200);
  const deleted = await api(server, 'DELETE', `/v1/agents/${mine.id as string}`, { key: a.key });
  t.same(deleted.body, { id: mine.id, deleted: true });
  t.equal((await api(server, 'GET', `/v1/agents/${mine.id as string}`, { key: a.key })).status, 404);
});

t.test('agents:read and agents:write are enforced', async (t) => {
  const reader = await createAccountWithKey(server, 'ENTERPRISE', ['agents:read']);
  const none = await createAccountWithKey(server, 'ENTERPRISE', ['orchestrate']);
  const post = await api(server, 'POST', '/v1/agents', { key: reader.key, body: body() });
  t.equal(post.status, 403);
  t.equal(post.body.requiredPermission, 'agents:write');
  t.equal((await api(server, 'GET', '/v1/agents', { key: reader.key })).status, 200);
  const list = await api(server, 'GET', '/v1/agents', { key: none.key });
  t.equal(list.status, 403);
  t.equal(list.body.requiredPermission, 'agents:read');
  const preview = await api(server, 'POST', '/v1/agents/selection-preview', { key: none.key, body: { query: 'x' } });
  t.equal(preview.status, 403);
});

t.test('the preview validates its body like orchestrate does', async (t) => {
  const { key } = await account();
  let deep: Record<string, unknown> = {};
  for (let i = 0; i < 10; i++) deep = { nested: deep };
  const cases: Array<[unknown, string]> = [
    [{}, 'query'],
    [{ query: '' }, 'query'],
    [{ query: 'x'.repeat(10_001) }, 'query'],
    [{ query: 'x', context: deep }, 'context'],
    [{ query: 'x', context: [] }, 'context'],
    [{ query: 'x', selectionCriteria: { maxAgents: 11 } }, 'selectionCriteria.maxAgents'],
    [{ query: 'x', selectionCriteria: { minConfidence: 1.5 } }, 'selectionCriteria.minConfidence'],
    [{ query: 'x', selectionCriteria: { verticals: 'finance' } }, 'selectionCriteria.verticals'],
  ];
  for (const [b, field] of cases) {
    const res = await api(server, 'POST', '/v1/agents/selection-preview', { key, body: b });
    t.equal(res.status, 400, JSON.stringify(b).slice(0, 80));
    t.equal(res.body.field, field);
  }
  let ok: Record<string, unknown> = {};
  for (let i = 0; i < 9; i++) ok = { nested: ok };
  t.equal((await api(server, 'POST', '/v1/agents/selection-preview', { key, body: { query: 'x', context: ok } })).status, 200);
});

t.test('the preview explains every candidate with scores, a status and reasons', async (t) => {
  const { key } = await account();
  const b = body({ name: 'Glacier Survey Planner', description: 'Plans glacier surveys with drones.', capabilities: ['glacier-survey'], vertical: 'geo' });
  await api(server, 'POST', '/v1/agents', { key, body: b });
  const res = await api(server, 'POST', '/v1/agents/selection-preview', {
    key,
    body: { query: 'plan a glacier survey', selectionCriteria: { maxAgents: 1 } },
  });
  t.equal(res.status, 200);
  t.match(res.body.criteria, { maxAgents: 1, minConfidence: 0.7 });
  const candidates = res.body.candidates as Array<Record<string, unknown>>;
  const top = candidates[0]!;
  t.match(top, { id: b.id, name: 'Glacier Survey Planner', status: 'selected', selected: true });
  t.ok((top.confidence as number) >= 0.7);
  t.type(top.relevance, 'number');
  t.ok((top.reasons as string[]).some((r) => r.includes('glacier')));
  t.ok(candidates.slice(1).every((c) => c.selected === false));
});

t.test('examples: accepted at registration and PATCH, shown in GET, validated, and named by the preview', async (t) => {
  const { key } = await account();
  const b = body({
    name: 'Fjord Kayak Guide',
    description: 'Guided sea kayak trips.',
    capabilities: ['kayak-trips'],
    vertical: 'outdoors',
    examples: ['Book a half-day paddle along the Geirangerfjord for two beginners'],
  });
  const created = await api(server, 'POST', '/v1/agents', { key, body: b });
  t.equal(created.status, 201);
  t.same(created.body.examples, ['Book a half-day paddle along the Geirangerfjord for two beginners']);
  const preview = await api(server, 'POST', '/v1/agents/selection-preview', {
    key,
    body: { query: 'paddle along the Geirangerfjord with a beginner', selectionCriteria: { maxAgents: 1 } },
  });
  const top = (preview.body.candidates as Array<Record<string, unknown>>)[0]!;
  t.equal(top.id, b.id);
  t.ok((top.reasons as string[]).some((r) => r.startsWith('closest example') && r.includes('Geirangerfjord')), JSON.stringify(top.reasons));
  t.match(top.signals, { matchedExample: 'Book a half-day paddle along the Geirangerfjord for two beginners' });
  t.ok((top.matches as { examples: string[] }).examples.length > 0);

  const patched = await api(server, 'PATCH', `/v1/agents/${b.id}`, { key, body: { examples: ['Rent a kayak in Bergen'] } });
  t.equal(patched.status, 200);
  t.same(patched.body.examples, ['Rent a kayak in Bergen']);
  t.same((await api(server, 'GET', `/v1/agents/${b.id}`, { key })).body.examples, ['Rent a kayak in Bergen']);
  t.same((await api(server, 'PATCH', `/v1/agents/${b.id}`, { key, body: { name: 'Fjord Guide' } })).body.examples, ['Rent a kayak in Bergen']);

  const bad: Array<[unknown, RegExp]> = [
    [Array.from({ length: 21 }, (_, i) => `example ${i}`), /^examples/],
    [['x'.repeat(501)], /^examples\/0|^examples\.0/],
    [[''], /^examples\/0|^examples\.0/],
    [['   '], /^examples\/0|^examples\.0/],
    ['one string', /^examples/],
  ];
  for (const [examples, field] of bad) {
    const res = await api(server, 'POST', '/v1/agents', { key, body: body({ examples }) });
    t.equal(res.status, 400, JSON.stringify(examples).slice(0, 40));
    t.equal(res.body.error, 'INVALID_REQUEST');
    t.match(res.body.field, field);
  }
  t.equal((await api(server, 'PATCH', `/v1/agents/${b.id}`, { key, body: { examples: [''] } })).status, 400);
});

t.test('examples are read from /info (an examples array and A2A-style skills) when registration gives none', async (t) => {
  const agent = await startMockAgent({
    info: {
      examples: ['Summarise this tide table', 42, ''],
      skills: [{ name: 'tides', description: 'tide forecasts', examples: ['When is high tide in Brest tomorrow?', 'Summarise this tide table'] }],
    } as unknown as Partial<MockAgentInfo>,
  });
  t.teardown(() => agent.close());
  const { key } = await account();
  const res = await api(server, 'POST', '/v1/agents', { key, body: body({ url: agent.url }) });
  t.equal(res.status, 201);
  t.same(res.body.examples, ['Summarise this tide table', 'When is high tide in Brest tomorrow?']);
  const own = await api(server, 'POST', '/v1/agents', { key, body: body({ url: agent.url, examples: ['Only mine'] }) });
  t.same(own.body.examples, ['Only mine']);
});
