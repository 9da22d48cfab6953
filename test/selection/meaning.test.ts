import t from 'tap';
import { buildCatalogIndex } from '../../src/logic/selection/index.js';
import { meaningSimilarities, requestMeaning, standout } from '../../src/logic/selection/meaning.js';
import { Language } from '../../src/logic/selection/text.js';
import { AGENTS } from './fixtures.js';

const agentIds = AGENTS.map((a) => a.id);
const all = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

t.test('the request is closest in meaning to the agent that does what it asks', async (t) => {
  const index = buildCatalogIndex(AGENTS);
  const m = meaningSimilarities(index, requestMeaning(index, 'Which airline has the cheapest seats to Rome in May?', Language.EN), all(AGENTS.length));
  const best = [...m].indexOf(Math.max(...m));
  t.equal(agentIds[best], 'flight-finder');
});

t.test('agents left out by the filters get no meaning similarity', async (t) => {
  const index = buildCatalogIndex(AGENTS);
  const m = meaningSimilarities(index, requestMeaning(index, 'cheap flights to Rome', Language.EN), [1, 2]);
  t.equal(m[0], 0);
  t.not(m[1], 0);
});

t.test('a copy of an agent does not make it stand out less; a different competitor does', async (t) => {
  const flight = AGENTS[0]!;
  const copy = { ...flight, id: 'flight-finder-2', name: 'Flight Finder Pro' };
  const request = 'Which airline has the cheapest seats to Rome in May?';
  const score = (agents: typeof AGENTS): number => {
    const index = buildCatalogIndex(agents);
    const m = meaningSimilarities(index, requestMeaning(index, request, Language.EN), all(agents.length));
    return standout(index, m, all(agents.length))[0] ?? 0;
  };
  const alone = score(AGENTS);
  const withCopy = score([...AGENTS, copy]);
  t.ok(Math.abs(withCopy - alone) < 0.05, `with a copy ${withCopy.toFixed(3)} vs alone ${alone.toFixed(3)}`);
  t.ok(score([flight]) >= alone, 'fewer competitors, more standing out');
});
