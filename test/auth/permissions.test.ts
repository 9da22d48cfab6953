import t from 'tap';
import { grants, isKnownPermission, isSubset, Permission } from '../../src/services/auth/permissions.js';
import { createKeyHasher, generateKeyValue, isWellFormedKey } from '../../src/services/auth/key-material.js';

t.test('* grants every permission; a list grants only its members', async (t) => {
  t.ok(grants(['*'], Permission.ORCHESTRATE));
  t.ok(grants(['orchestrate'], Permission.ORCHESTRATE));
  t.notOk(grants(['agents:read'], Permission.AGENTS_WRITE));
});

t.test('a subset check refuses * unless the holder has *', async (t) => {
  t.ok(isSubset(['orchestrate'], ['orchestrate', 'agents:read']));
  t.notOk(isSubset(['*'], ['orchestrate', 'agents:read']));
  t.ok(isSubset(['*'], ['*']));
  t.notOk(isSubset(['agents:write'], ['agents:read']));
});

t.test('only the documented permission names are known', async (t) => {
  for (const p of ['*', 'orchestrate', 'workflows:approve', 'api-keys:manage']) t.ok(isKnownPermission(p), p);
  t.notOk(isKnownPermission('admin'));
});

t.test('generated keys are mk_ plus 32 lowercase hex and unique', async (t) => {
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const key = generateKeyValue();
    t.ok(isWellFormedKey(key));
    seen.add(key);
  }
  t.equal(seen.size, 200);
  t.notOk(isWellFormedKey('mk_ABCDEF0123456789abcdef0123456789'));
  t.notOk(isWellFormedKey('mk_0123'));
});

t.test('hashes are deterministic and depend on the secret', async (t) => {
  const key = generateKeyValue();
  const plain = createKeyHasher(null);
  const keyed = createKeyHasher('server-secret');
  t.equal(plain(key), plain(key));
  t.not(plain(key), keyed(key));
  t.not(keyed(key), createKeyHasher('other-secret')(key));
  t.notMatch(plain(key), key);
});
