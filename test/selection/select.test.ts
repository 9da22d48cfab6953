import t from 'tap';
import { SCORING, buildCatalogIndex, previewSelection, selectAgents } from '../../src/logic/selection/index.js';
import { splitClauses } from '../../src/logic/selection/query.js';
import { tokenize } from '../../src/logic/selection/text.js';
import { AGENTS, HEALTHY, statsFor } from './fixtures.js';

const index = buildCatalogIndex(AGENTS);
const ids = (r: { selected: readonly { agent: { id: string } }[] }): string[] => r.selected.map((s) => s.agent.id);

t.test('an agent whose description fits the query is selected with confidence well above 0.7', async (t) => {
  const r = selectAgents(index, statsFor(), { query: 'Find cheap flights from Boston to Denver, compare fares' });
  t.equal(ids(r)[0], 'flight-finder');
  t.ok((r.selected[0]?.confidence ?? 0) > 0.85);
});

t.test('a query that no agent fits selects nothing', async (t) => {
  const r = selectAgents(index, statsFor(), { query: 'Bake me a chocolate cake' });
  t.same(ids(r), []);
});

t.test('selection is deterministic for the same catalog, stats and request', async (t) => {
  const request = { query: 'translate this contract into German for the court' };
  const first = selectAgents(index, statsFor(), request);
  for (let i = 0; i < 5; i += 1) t.same(selectAgents(buildCatalogIndex(AGENTS), statsFor(), request), first);
});

t.test('the verticals filter keeps only agents of the listed verticals', async (t) => {
  const r = selectAgents(index, statsFor(), {
    query: 'Translate this document into German',
    selectionCriteria: { verticals: ['legal'] },
  });
  t.same(ids(r), ['legal-translator']);
});

t.test('requiredCapabilities keeps only agents that have every listed capability', async (t) => {
  const r = selectAgents(index, statsFor(), {
    query: 'Translate this message',
    selectionCriteria: { requiredCapabilities: ['translation', 'language-detection'] },
  });
  t.same(ids(r), ['translator']);
});

t.test('required capabilities count as evidence for a terse query', async (t) => {
  const r = selectAgents(index, statsFor(), {
    query: 'Can you look at this for me?',
    selectionCriteria: { requiredCapabilities: ['code-review'] },
  });
  t.same(ids(r), ['code-reviewer']);
});

t.test('unhealthy and circuit-open agents are never selected', async (t) => {
  const stats = statsFor({
    'flight-finder': { ...HEALTHY, healthy: false },
    'hotel-finder': { ...HEALTHY, circuitOpen: true },
  });
  const r = selectAgents(index, stats, { query: 'Book flights and a hotel in Rome' });
  t.same(ids(r), []);
});

t.test('a lower success rate lowers confidence but never below what relevance allows', async (t) => {
  const good = selectAgents(index, statsFor(), { query: 'Review my pull request for bugs' });
  const flaky = selectAgents(index, statsFor({ 'code-reviewer': { ...HEALTHY, successRate: 0.5 } }), {
    query: 'Review my pull request for bugs',
  });
  t.ok((flaky.selected[0]?.confidence ?? 0) < (good.selected[0]?.confidence ?? 0));
  t.ok((flaky.selected[0]?.confidence ?? 0) >= 0.8 * (good.selected[0]?.confidence ?? 0));
});

t.test('maxAgents caps the number of selected agents and keeps the best', async (t) => {
  const query = 'Book flights and a hotel for my trip';
  const all = selectAgents(index, statsFor(), { query, selectionCriteria: { minConfidence: 0 } });
  const one = selectAgents(index, statsFor(), { query, selectionCriteria: { maxAgents: 1, minConfidence: 0 } });
  t.ok(all.selected.length >= 2);
  t.same(ids(one), ids(all).slice(0, 1));
});

t.test('minConfidence drops agents scoring under it', async (t) => {
  const query = 'Book flights and a hotel for my trip';
  const strict = selectAgents(index, statsFor(), { query, selectionCriteria: { minConfidence: 0.99 } });
  const loose = selectAgents(index, statsFor(), { query, selectionCriteria: { minConfidence: 0 } });
  t.ok(strict.selected.every((s) => s.confidence >= 0.99));
  t.ok(loose.selected.length > strict.selected.length);
});

t.test('a request needing two agents selects both', async (t) => {
  const r = selectAgents(index, statsFor(), { query: 'Book a flight to Kyoto and a hotel near the station' });
  t.same(new Set(ids(r)), new Set(['flight-finder', 'hotel-finder']));
});

t.test('a typo in a key word still finds the agent', async (t) => {
  const r = selectAgents(index, statsFor(), { query: 'trnaslate this email to spanish pls' });
  t.equal(ids(r)[0], 'translator');
});

t.test('the preview lists every agent with its status and reasons', async (t) => {
  const stats = statsFor({ 'hotel-finder': { ...HEALTHY, healthy: false } });
  const p = previewSelection(index, stats, {
    query: 'Find cheap flights and compare fares',
    selectionCriteria: { verticals: ['travel', 'devtools'] },
  });
  t.equal(p.candidates.length, AGENTS.length);
  const byId = new Map(p.candidates.map((c) => [c.agentId, c] as const));
  const flight = byId.get('flight-finder');
  t.equal(flight?.status, 'selected');
  t.ok(flight?.matches.name.includes('flights'));
  t.ok(flight?.reasons.some((r) => r.startsWith('matched in name')));
  t.equal(byId.get('hotel-finder')?.status, 'unhealthy');
  t.equal(byId.get('translator')?.status, 'filtered_vertical');
  t.equal(byId.get('code-reviewer')?.status, 'below_min_confidence');
  for (const c of p.candidates) t.ok(c.reasons.length > 0, `${c.agentId} has a reason`);
  t.same(p.selected, selectAgents(index, stats, {
    query: 'Find cheap flights and compare fares',
    selectionCriteria: { verticals: ['travel', 'devtools'] },
  }).selected);
});

t.test('the preview says when a qualifying agent was cut by maxAgents', async (t) => {
  const p = previewSelection(index, statsFor(), {
    query: 'Book a flight to Kyoto and a hotel near the station',
    selectionCriteria: { maxAgents: 1 },
  });
  t.equal(p.selected.length, 1);
  t.ok(p.candidates.some((c) => c.status === 'beyond_max_agents'));
});

t.test('English contractions keep their head word and drop the clitic', async (t) => {
  const words = tokenize("We're sure it doesn't matter, it's my wife's").map((w) => w.folded);
  t.notOk(words.includes('re'));
  t.ok(words.includes('we') && words.includes('doesn') && words.includes('wife'));
  t.same(tokenize("l'ibuprofène").map((w) => w.folded), ['ibuprofene']);
});

t.test('a query is split into clauses at punctuation and joining conjunctions', async (t) => {
  t.same(splitClauses('Review the diff, then translate the notes and email them').length, 3);
  t.same(splitClauses('Translate this message').length, 1);
});

t.test('an agent that explains one clause of a multi-part request is selected with the best one', async (t) => {
  const query = 'Review the pull request for bugs and error handling, then translate the chat message into German';
  const whole = selectAgents(index, statsFor(), { query }, { ...SCORING, clauseWeight: 0 });
  const perClause = selectAgents(index, statsFor(), { query });
  t.same(ids(whole), ['code-reviewer']);
  t.same(ids(perClause), ['code-reviewer', 'translator']);
});
