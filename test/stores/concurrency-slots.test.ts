import t from 'tap';
import type { ConcurrencyLimits } from '../../src/domain/limits.js';
import { coordinationKinds, openTestCoordination, openTestWorkers } from '../helpers/stores.js';

const LIMITS: ConcurrencyLimits = { concurrent: 2, queueSize: 3 };
const LEASE_MS = 30_000;
const NOW = Date.UTC(2030, 0, 1);
const unique = (): string => `acct_${Math.random().toString(16).slice(2, 14)}`;

for (const kind of coordinationKinds()) {
  t.test(`concurrency slots (${kind})`, async (t) => {
    t.test('holders start while slots are free, then queue in arrival order with their positions', async (t) => {
      const c = await openTestCoordination(t, kind);
      const account = unique();
      t.same(await c.acquireSlot(account, 'e1', LIMITS, LEASE_MS, NOW), { status: 'started', promoted: [] });
      t.same(await c.acquireSlot(account, 'e2', LIMITS, LEASE_MS, NOW), { status: 'started', promoted: [] });
      t.same(await c.acquireSlot(account, 'e3', LIMITS, LEASE_MS, NOW), { status: 'queued', position: 1, promoted: [] });
      t.same(await c.acquireSlot(account, 'e4', LIMITS, LEASE_MS, NOW), { status: 'queued', position: 2, promoted: [] });
      t.equal(await c.slotState(account, 'e1', NOW), 'running');
      t.equal(await c.slotState(account, 'e4', NOW), 'queued');
      t.equal(await c.slotState(account, 'nobody', NOW), 'none');
    });

    t.test('a holder beyond the queue size is refused and changes nothing', async (t) => {
      const c = await openTestCoordination(t, kind);
      const account = unique();
      for (const id of ['e1', 'e2', 'e3', 'e4', 'e5']) await c.acquireSlot(account, id, LIMITS, LEASE_MS, NOW);
      t.same(await c.acquireSlot(account, 'e6', LIMITS, LEASE_MS, NOW), { status: 'full', promoted: [] });
      t.equal(await c.slotState(account, 'e6', NOW), 'none');
      t.same(await c.releaseSlot(account, 'e5', LEASE_MS, NOW), [], 'releasing a queued holder promotes nobody');
      t.same(await c.acquireSlot(account, 'e6', LIMITS, LEASE_MS, NOW), { status: 'queued', position: 3, promoted: [] }, 'the freed place is taken');
    });

    t.test('asking again for a holder that has a slot or a place returns it', async (t) => {
      const c = await openTestCoordination(t, kind);
      const account = unique();
      for (const id of ['e1', 'e2', 'e3', 'e4']) await c.acquireSlot(account, id, LIMITS, LEASE_MS, NOW);
      t.same(await c.acquireSlot(account, 'e2', LIMITS, LEASE_MS, NOW), { status: 'started', promoted: [] });
      t.same(await c.acquireSlot(account, 'e4', LIMITS, LEASE_MS, NOW), { status: 'queued', position: 2, promoted: [] });
    });

    t.test('releasing a slot promotes the queue head, first in first out', async (t) => {
      const c = await openTestCoordination(t, kind);
      const account = unique();
      for (const id of ['e1', 'e2', 'e3', 'e4', 'e5']) await c.acquireSlot(account, id, LIMITS, LEASE_MS, NOW);
      t.same(await c.releaseSlot(account, 'e1', LEASE_MS, NOW), ['e3']);
      t.equal(await c.slotState(account, 'e3', NOW), 'running');
      t.same(await c.acquireSlot(account, 'e5', LIMITS, LEASE_MS, NOW), { status: 'queued', position: 2, promoted: [] });
      t.same(await c.releaseSlot(account, 'e2', LEASE_MS, NOW), ['e4']);
      t.same(await c.releaseSlot(account, 'e3', LEASE_MS, NOW), ['e5']);
      t.same(await c.releaseSlot(account, 'e3', LEASE_MS, NOW), [], 'a second release is a no-op');
    });

    t.test('a slot whose lease ended is reclaimed and given to the queue head', async (t) => {
      const c = await openTestCoordination(t, kind);
      const account = unique();
      for (const id of ['e1', 'e2', 'e3', 'e4']) await c.acquireSlot(account, id, LIMITS, 1_000, NOW);
      t.same(await c.renewSlots(account, ['e2'], 10_000, NOW + 500), [], 'e2 is renewed, e1 is not');
      t.equal(await c.slotState(account, 'e1', NOW + 1_000), 'expired');
      const later = await c.acquireSlot(account, 'e5', LIMITS, 1_000, NOW + 1_000);
      t.same(later, { status: 'queued', position: 2, promoted: ['e3'] }, 'the reclaimed slot goes to e3, not to the newcomer');
      t.equal(await c.slotState(account, 'e1', NOW + 1_000), 'none');
      t.same(await c.renewSlots(account, ['e1', 'e2'], 1_000, NOW + 1_000), ['e1'], 'the lapsed holder is told it lost its slot');
    });

    t.test('a release reclaims ended leases too', async (t) => {
      const c = await openTestCoordination(t, kind);
      const account = unique();
      for (const id of ['e1', 'e2', 'e3', 'e4', 'e5']) await c.acquireSlot(account, id, LIMITS, 1_000, NOW);
      await c.renewSlots(account, ['e2'], 60_000, NOW);
      t.same(await c.releaseSlot(account, 'e3', 1_000, NOW + 2_000), ['e4'], 'e1 lapsed: its slot goes to e4; e3 left the queue');
      t.equal(await c.slotState(account, 'e5', NOW + 2_000), 'queued');
    });

    t.test('renewed leases stay held after the first lease would have ended, and lapse when theirs ends', async (t) => {
      const c = await openTestCoordination(t, kind);
      const account = unique();
      for (const id of ['e1', 'e2', 'e3']) await c.acquireSlot(account, id, LIMITS, 1_000, NOW);
      t.same(await c.renewSlots(account, ['e1', 'e2'], 5_000, NOW + 900), []);
      // Past the leases first handed out, before the renewed ones end: nothing is reclaimed.
      t.same(await c.acquireSlot(account, 'e4', LIMITS, 1_000, NOW + 2_000), { status: 'queued', position: 2, promoted: [] });
      t.same(await c.releaseSlot(account, 'e4', 1_000, NOW + 3_000), []);
      t.equal(await c.slotState(account, 'e1', NOW + 3_000), 'running');
      // e1 and e2 end at NOW + 5,900: both slots go to the queue head and the next newcomer.
      t.same(await c.acquireSlot(account, 'e5', LIMITS, 1_000, NOW + 6_000), { status: 'started', promoted: ['e3'] });
    });

    t.test('concurrent acquires never hand out more slots or places than the limits', async (t) => {
      const workers = await openTestWorkers(t, kind, 3);
      const account = unique();
      const limits = { concurrent: 5, queueSize: 20 };
      const ids = Array.from({ length: 60 }, (_, i) => `e${i}`);
      const results = await Promise.all(ids.map((id, i) => workers[i % workers.length]!.acquireSlot(account, id, limits, LEASE_MS, NOW)));
      t.equal(results.filter((r) => r.status === 'started').length, 5);
      const positions = results.flatMap((r) => (r.status === 'queued' ? [r.position] : [])).sort((a, b) => a - b);
      t.same(positions, Array.from({ length: 20 }, (_, i) => i + 1), 'each queue position is given once');
      t.equal(results.filter((r) => r.status === 'full').length, 35);
    });

    t.test('the limits come from the latest acquire, so a release promotes up to them', async (t) => {
      const c = await openTestCoordination(t, kind);
      const account = unique();
      for (const id of ['e1', 'e2', 'e3', 'e4']) await c.acquireSlot(account, id, { concurrent: 1, queueSize: 5 }, LEASE_MS, NOW);
      t.same(await c.acquireSlot(account, 'e5', { concurrent: 3, queueSize: 5 }, LEASE_MS, NOW), { status: 'queued', position: 2, promoted: ['e2', 'e3'] });
      t.same(await c.releaseSlot(account, 'e1', LEASE_MS, NOW), ['e4']);
    });
  });
}
