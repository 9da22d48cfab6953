import t from 'tap';
import { buildCatalogIndex, previewSelection, selectAgents } from '../../src/logic/selection/index.js';
import { expandWord } from '../../src/logic/selection/fuzzy.js';
import { semanticNeighbours } from '../../src/logic/selection/semantic.js';
import { Language, stem } from '../../src/logic/selection/text.js';
import { AGENTS, statsFor } from './fixtures.js';

t.test('a word the catalog lacks stands for the catalog words nearest in meaning', async (t) => {
  const index = buildCatalogIndex(AGENTS);
  const near = semanticNeighbours(index, 'airfare').map((n) => n.word);
  t.ok(near.some((w) => w === 'flights' || w === 'fares' || w === 'flight'), `airfare → ${near.join(', ')}`);
  t.same(semanticNeighbours(index, 'the'), [], 'a frequent word is not expanded');
  t.same(semanticNeighbours(buildCatalogIndex(AGENTS, { vectors: null }), 'airfare'), [], 'no vectors, no neighbours');
});

t.test('a request in other words than the catalog still reaches the right agent through meaning', async (t) => {
  const query = { query: 'Book me a plane ticket to Lisbon' };
  t.same(selectAgents(buildCatalogIndex(AGENTS, { vectors: null }), statsFor(), query).selected, []);
  t.equal(selectAgents(buildCatalogIndex(AGENTS), statsFor(), query).selected[0]?.agent.id, 'flight-finder');
});

t.test('an index built without vectors still matches by form, with no meaning similarity', async (t) => {
  const index = buildCatalogIndex(AGENTS, { vectors: null });
  t.equal(index.semantic, undefined);
  const top = previewSelection(index, statsFor(), { query: 'Find cheap flights from Boston to Denver, compare fares' }).candidates[0];
  t.equal(top?.agentId, 'flight-finder');
  t.ok((top?.signals.text ?? 0) > 0.9, 'text relevance is computed as before');
  t.equal(top?.signals.meaning, 0);
});

t.test('a frequent English word is not read as a typo of a catalog word; a rare form still is', async (t) => {
  const agents = [
    { id: 'threat-hunter', name: 'Threat Hunter', description: 'Spots intrusions in security logs.', vertical: 'security', capabilities: ['threat-detection'] },
    { id: 'proofreader', name: 'Proofreader', description: 'Fixes grammar and spelling.', vertical: 'language', capabilities: ['grammar-correction'] },
  ];
  const words = (index: ReturnType<typeof buildCatalogIndex>, word: string): string[] =>
    expandWord(index, word, stem(word, Language.EN)).map((e) => e.word);
  const withVectors = buildCatalogIndex(agents);
  t.notOk(words(withVectors, 'thread').includes('threat'), '"thread" is a word of its own');
  t.ok(words(withVectors, 'grammer').includes('grammar'), '"grammer" is a typo');
  // Without vectors there is no dictionary to tell, so any near form may be a typo.
  t.ok(words(buildCatalogIndex(agents, { vectors: null }), 'thread').includes('threat'));
});
