/** AgentStore against every available SQL kind: visibility scopes, id conflicts, pagination, updates. */
import t from 'tap';
import { InvalidAgentCursor } from '../../src/ports/agents.js';
import { type NewAgent } from '../../src/domain/agents.js';
import { durableKinds, newAccount, openTestDurable } from '../helpers/stores.js';

function agent(id: string, ownerAccountId: string | null, overrides: Partial<NewAgent> = {}): NewAgent {
  return {
    id,
    ownerAccountId,
    name: `Agent ${id}`,
    description: 'does things',
    url: 'https://agent.example.com',
    vertical: 'finance',
    capabilities: ['Invoice-Extraction', 'ocr'],
    pricingModel: 'per_execution',
    basePriceMicroUsd: 40_000,
    timeoutMs: 30_000,
    examples: [],
    maxConcurrency: 16,
    ...overrides,
  };
}

for (const kind of durableKinds()) {
  t.test(kind, async (t) => {
    const stores = await openTestDurable(t, kind);
    const { agents, accounts } = stores;
    const a = await accounts.create(newAccount());
    const b = await accounts.create(newAccount());

    t.test('a global agent is visible to every account and an account agent only to its owner', async (t) => {
      await agents.create(agent('g-visible', null));
      await agents.create(agent('a-private', a.id));
      t.equal((await agents.getVisible(a.id, 'g-visible'))?.ownerAccountId, null);
      t.equal((await agents.getVisible(b.id, 'g-visible'))?.id, 'g-visible');
      t.equal((await agents.getVisible(a.id, 'a-private'))?.ownerAccountId, a.id);
      t.equal(await agents.getVisible(b.id, 'a-private'), null);
      t.equal(await agents.getVisible(null, 'a-private'), null);
    });

    t.test('an id is refused when any account would see it twice', async (t) => {
      await agents.create(agent('dup-global', null));
      t.same(await agents.create(agent('dup-global', null)), { conflict: 'same_scope' });
      t.same(await agents.create(agent('dup-global', a.id)), { conflict: 'global' });
      await agents.create(agent('dup-private', a.id));
      t.same(await agents.create(agent('dup-private', a.id)), { conflict: 'same_scope' });
      t.same(await agents.create(agent('dup-private', null)), { conflict: 'account' });
      t.ok('created' in (await agents.create(agent('dup-private', b.id))), 'another account may reuse a private id');
    });

    t.test('concurrent registrations of one id in two scopes let exactly one through', async (t) => {
      const results = await Promise.all([agents.create(agent('race', null)), agents.create(agent('race', a.id))]);
      t.equal(results.filter((r) => 'created' in r).length, 1);
    });

    t.test('price is kept in integer micro-USD and capabilities as given', async (t) => {
      const res = await agents.create(agent('priced', a.id, { basePriceMicroUsd: 1_234_567 }));
      if (!('created' in res)) throw new Error('not created');
      t.equal(res.created.basePriceMicroUsd, 1_234_567);
      t.same(res.created.capabilities, ['Invoice-Extraction', 'ocr']);
    });

    t.test('examples are stored in order, kept by an unrelated update and replaced (or emptied) by one that sets them', async (t) => {
      const res = await agents.create(agent('exampled', a.id, { examples: ['Read this invoice', 'Totals from a bill, please'] }));
      if (!('created' in res)) throw new Error('not created');
      t.same(res.created.examples, ['Read this invoice', 'Totals from a bill, please']);
      t.same((await agents.update(a.id, 'exampled', { name: 'Renamed' }))?.examples, ['Read this invoice', 'Totals from a bill, please']);
      t.same((await agents.update(a.id, 'exampled', { examples: ['Only this one'] }))?.examples, ['Only this one']);
      t.same((await agents.update(a.id, 'exampled', { examples: [] }))?.examples, []);
      t.same((await agents.getOwned(a.id, 'exampled'))?.examples, []);
      const plain = await agents.create(agent('plain', a.id));
      t.same('created' in plain ? plain.created.examples : undefined, []);
    });

    t.test('listing pages through visible agents with filters and an opaque cursor', async (t) => {
      const c = await accounts.create(newAccount());
      for (let i = 0; i < 5; i++) await agents.create(agent(`page-${i}`, c.id, { vertical: i % 2 === 0 ? 'Legal' : 'hr' }));
      const first = await agents.listVisible(c.id, { limit: 2, vertical: 'legal' });
      t.same(first.agents.map((x) => x.id), ['page-0', 'page-2']);
      t.type(first.nextCursor, 'string');
      const second = await agents.listVisible(c.id, { limit: 2, vertical: 'legal', after: first.nextCursor! });
      t.same(second.agents.map((x) => x.id), ['page-4']);
      t.equal(second.nextCursor, null);
      const byCapability = await agents.listVisible(c.id, { limit: 50, capability: 'invoice-extraction' });
      t.ok(byCapability.agents.some((x) => x.id === 'page-1'));
      t.notOk((await agents.listVisible(b.id, { limit: 200 })).agents.some((x) => x.ownerAccountId === c.id));
      await t.rejects(agents.listVisible(c.id, { limit: 2, after: 'bm9wZQ' }), InvalidAgentCursor);
    });

    t.test('update and delete touch only the owner\'s agent', async (t) => {
      await agents.create(agent('owned', a.id));
      t.equal(await agents.update(b.id, 'owned', { name: 'x' }), null);
      t.equal(await agents.update(null, 'owned', { name: 'x' }), null);
      t.equal((await agents.getOwned(a.id, 'owned'))?.maxConcurrency, 16);
      const updated = await agents.update(a.id, 'owned', { name: 'Renamed', timeoutMs: 5_000, maxConcurrency: 200 });
      t.equal(updated?.name, 'Renamed');
      t.equal(updated?.timeoutMs, 5_000);
      t.equal(updated?.maxConcurrency, 200);
      t.equal(updated?.description, 'does things');
      t.equal(await agents.delete(b.id, 'owned'), null);
      t.equal((await agents.delete(a.id, 'owned'))?.id, 'owned');
      t.equal(await agents.getOwned(a.id, 'owned'), null);
    });
  });
}
