import t from 'tap';
import { buildCatalogIndex, selectAgents } from '../../src/selection/index.js';
import { loadWordVectors, sharedWordVectors } from '../../src/selection/embeddings.js';
import { expandWord } from '../../src/selection/fuzzy.js';
import { Language, stem } from '../../src/selection/text.js';
import { AGENTS, statsFor } from './fixtures.js';

t.test('the word-vector loader keeps the most frequent words as unit vectors', async (t) => {
  const v = loadWordVectors(undefined, 2000);
  t.equal(v.dimensions, 100);
  t.ok(v.rows.size > 1500 && v.rows.size <= 2000);
  const row = v.rows.get('flight') ?? -1;
  t.ok(row >= 0);
  let norm = 0;
  for (let i = 0; i < v.dimensions; i += 1) norm += (v.data[row * v.dimensions + i] ?? 0) ** 2;
  t.ok(Math.abs(norm - 1) < 1e-5);
});

t.test('a word the catalog lacks reaches an agent through its meaning', async (t) => {
  const query = { query: 'Book me a plane ticket to Lisbon' };
  t.ok(sharedWordVectors() !== null);
  t.same(selectAgents(buildCatalogIndex(AGENTS, { vectors: null }), statsFor(), query).selected, []);
  t.equal(selectAgents(buildCatalogIndex(AGENTS), statsFor(), query).selected[0]?.agent.id, 'flight-finder');
});

t.test('an index built without vectors still selects by form', async (t) => {
  const index = buildCatalogIndex(AGENTS, { vectors: null });
  t.equal(index.semantic, undefined);
  const r = selectAgents(index, statsFor(), { query: 'Find cheap flights from Boston to Denver, compare fares' });
  t.equal(r.selected[0]?.agent.id, 'flight-finder');
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
