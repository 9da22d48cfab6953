/** Selection with agents' example requests: a field of their own, the closest example, fairness to agents without. */
import t from 'tap';
import { buildCatalogIndex, previewSelection, selectAgents } from '../../src/logic/selection/index.js';
import type { CatalogAgent } from '../../src/logic/selection/index.js';
import { AGENTS, statsFor } from './fixtures.js';

const EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  'code-reviewer': ['someone pls look at my PR before i merge', 'Is this diff safe to ship?'],
  'hotel-finder': ['Somewhere to sleep in Lisbon for three nights near the river', 'A cheap room in Rome this weekend'],
  translator: ['Put this email into Spanish for a customer'],
};

function catalog(withExamples: (id: string) => boolean): CatalogAgent[] {
  return AGENTS.map((a) => ({ ...a, examples: withExamples(a.id) ? (EXAMPLES[a.id] ?? []) : [] }));
}

t.test('an example worded like the request selects an agent its description alone does not', async (t) => {
  const query = { query: 'somewhere to sleep in Lisbon near the river' };
  const withEx = buildCatalogIndex(catalog(() => true));
  const selected = selectAgents(withEx, statsFor(), query).selected.map((s) => s.agent.id);
  t.equal(selected[0], 'hotel-finder');
});

t.test('the preview names the example that matched, with its similarity, and the words it shares', async (t) => {
  const index = buildCatalogIndex(catalog(() => true));
  const preview = previewSelection(index, statsFor(), { query: 'can someone look at my PR before I merge it' });
  const top = preview.candidates[0];
  t.equal(top?.agentId, 'code-reviewer');
  t.equal(top?.signals.matchedExample, 'someone pls look at my PR before i merge');
  t.ok((top?.signals.example ?? 0) > 0.5);
  t.ok(top?.reasons.some((r) => r.startsWith('closest example (similarity') && r.includes('look at my PR')), (top?.reasons ?? []).join(' | '));
  t.ok((top?.matches.examples.length ?? 0) > 0, 'lexical matches in the examples field');
  const none = preview.candidates.find((c) => c.agentId === 'flight-finder');
  t.equal(none?.signals.example, null, 'an agent without examples has no example similarity');
  t.equal(none?.signals.matchedExample, null);
});

t.test('an agent without examples is not pushed out by agents that have unrelated ones', async (t) => {
  const query = { query: 'compare fares for flights from Boston to Denver next Friday' };
  const bare = selectAgents(buildCatalogIndex(catalog(() => false)), statsFor(), query).selected;
  const others = selectAgents(buildCatalogIndex(catalog((id) => id !== 'flight-finder')), statsFor(), query).selected;
  t.equal(bare[0]?.agent.id, 'flight-finder');
  t.equal(others[0]?.agent.id, 'flight-finder');
  t.ok(Math.abs((bare[0]?.confidence ?? 0) - (others[0]?.confidence ?? 0)) < 0.05, `${bare[0]?.confidence} vs ${others[0]?.confidence}`);
});

t.test('a request nothing fits stays unmatched with examples', async (t) => {
  const index = buildCatalogIndex(catalog(() => true));
  t.same(selectAgents(index, statsFor(), { query: 'walk my dog at six tonight' }).selected, []);
});
