import t from 'tap';
import { Authenticator } from '../../src/services/auth/authenticator.js';
import { KeyCache } from '../../src/services/auth/key-cache.js';
import { createKeyHasher, generateKeyValue } from '../../src/services/auth/key-material.js';
import { ApiError } from '../../src/domain/errors.js';
import type { Access } from '../../src/services/auth/access.js';
import type { ApiKeyRecord, KeyWithAccount } from '../../src/domain/api-keys.js';
import type { ApiKeyStore } from '../../src/ports/api-keys.js';

const hash = createKeyHasher(null);
const ADMIN = 'operator-token-abcdefghijklmnop';
const NOW = Date.parse('2026-06-01T00:00:00Z');

function setup(overrides: Partial<ApiKeyRecord> = {}, tier: 'DEVELOPER' | 'ENTERPRISE' = 'DEVELOPER') {
  const value = generateKeyValue();
  const row: KeyWithAccount = {
    key: {
      id: 'key_1',
      accountId: 'acct_1',
      name: 'k',
      keyHash: hash(value),
      permissions: ['orchestrate'],
      createdAt: new Date(NOW - 1000),
      expiresAt: null,
      isActive: true,
      ipWhitelist: null,
      lastUsedAt: null,
      ...overrides,
    },
    account: { id: 'acct_1', name: 'a', tier, limits: null, feeBasisPoints: null, createdAt: new Date(NOW - 1000) },
  };
  let lookups = 0;
  const store = {
    findByHash: async (h: string) => {
      lookups++;
      return h === row.key.keyHash ? row : null;
    },
  } as unknown as ApiKeyStore;
  const cache = new KeyCache({ max: 100, ttlMs: 60_000 });
  const auth = new Authenticator({ keys: store, cache, hash, adminToken: ADMIN, now: () => NOW });
  return { auth, value, cache, lookups: () => lookups };
}

const orchestrate: Access = { kind: 'permission', permission: 'orchestrate' };

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

t.test('a valid key with the permission is admitted, by Bearer or x-api-key', async (t) => {
  const { auth, value } = setup();
  const viaBearer = await auth.authorize(orchestrate, { authorization: `Bearer ${value}`, apiKey: '' }, '1.2.3.4');
  t.equal(viaBearer.kind, 'key');
  const viaHeader = await auth.authorize(orchestrate, { authorization: '', apiKey: value }, '1.2.3.4');
  t.equal(viaHeader.kind, 'key');
});

t.test('an optional key: anonymous without one, checked like any key when sent', async (t) => {
  const { auth, value } = setup();
  const optional: Access = { kind: 'optional-key' };
  t.equal((await auth.authorize(optional, { authorization: '', apiKey: '' }, '1.2.3.4')).kind, 'anonymous');
  t.equal((await auth.authorize(optional, { authorization: `Bearer ${value}`, apiKey: '' }, '1.2.3.4')).kind, 'key');
  const unknown = await failure(auth.authorize(optional, { authorization: `Bearer ${generateKeyValue()}`, apiKey: '' }, '1.2.3.4'));
  t.equal(unknown.status, 401);
  const operator = await failure(auth.authorize(optional, { authorization: `Bearer ${ADMIN}`, apiKey: '' }, '1.2.3.4'));
  t.equal(operator.status, 401, 'the operator token is not a key');
});

t.test('a missing permission is 403 naming it', async (t) => {
  const { auth, value } = setup();
  const error = await failure(auth.authorize({ kind: 'permission', permission: 'agents:write' }, { authorization: `Bearer ${value}`, apiKey: '' }, '1.2.3.4'));
  t.equal(error.status, 403);
  t.equal(error.extra.requiredPermission, 'agents:write');
});

t.test('a deactivated key is 401 UNAUTHORIZED', async (t) => {
  const { auth, value } = setup({ isActive: false });
  const error = await failure(auth.authorize(orchestrate, { authorization: `Bearer ${value}`, apiKey: '' }, '1.2.3.4'));
  t.equal(error.status, 401);
  t.equal(error.code, 'UNAUTHORIZED');
});

t.test('an expired key is 401 KEY_EXPIRED with the expiry', async (t) => {
  const { auth, value } = setup({ expiresAt: new Date(NOW - 1) });
  const error = await failure(auth.authorize(orchestrate, { authorization: `Bearer ${value}`, apiKey: '' }, '1.2.3.4'));
  t.equal(error.code, 'KEY_EXPIRED');
  t.equal(error.extra.expiredAt, new Date(NOW - 1).toISOString());
});

t.test('an address outside the allowlist is 403', async (t) => {
  const { auth, value } = setup({ ipWhitelist: ['10.0.0.0/8'] }, 'ENTERPRISE');
  const error = await failure(auth.authorize(orchestrate, { authorization: `Bearer ${value}`, apiKey: '' }, '1.2.3.4'));
  t.equal(error.status, 403);
  const ok = await auth.authorize(orchestrate, { authorization: `Bearer ${value}`, apiKey: '' }, '10.1.1.1');
  t.equal(ok.kind, 'key');
});

t.test('the operator token is admitted only where the route allows it', async (t) => {
  const { auth } = setup();
  const creds = { authorization: `Bearer ${ADMIN}`, apiKey: '' };
  t.equal((await auth.authorize({ kind: 'operator' }, creds, '1.2.3.4')).kind, 'operator');
  t.equal((await auth.authorize({ kind: 'permission', permission: 'api-keys:manage', operator: true }, creds, '1.2.3.4')).kind, 'operator');
  t.equal((await failure(auth.authorize(orchestrate, creds, '1.2.3.4'))).status, 401);
});

t.test('a key is refused on an operator-only route with 403', async (t) => {
  const { auth, value } = setup({ permissions: ['*'] });
  const error = await failure(auth.authorize({ kind: 'operator' }, { authorization: `Bearer ${value}`, apiKey: '' }, '1.2.3.4'));
  t.equal(error.status, 403);
});

t.test('lookups are cached, and an eviction forces a fresh lookup', async (t) => {
  const { auth, value, cache, lookups } = setup();
  const creds = { authorization: `Bearer ${value}`, apiKey: '' };
  await auth.authorize(orchestrate, creds, '1.2.3.4');
  await auth.authorize(orchestrate, creds, '1.2.3.4');
  t.equal(lookups(), 1);
  cache.evict(hash(value));
  await auth.authorize(orchestrate, creds, '1.2.3.4');
  t.equal(lookups(), 2);
});

t.test('a lookup that started before an eviction does not refill the cache', async (t) => {
  const cache = new KeyCache({ max: 10, ttlMs: 60_000 });
  const generation = cache.generation;
  cache.evict('h');
  cache.fill('h', {} as KeyWithAccount, generation);
  t.equal(cache.get('h'), undefined);
  cache.fill('h', {} as KeyWithAccount, cache.generation);
  t.ok(cache.get('h'));
});

t.test('the cache is bypassed while revocations cannot reach this worker', async (t) => {
  const value = generateKeyValue();
  let lookups = 0;
  const row = {
    key: { id: 'key_1', accountId: 'a', name: 'k', keyHash: hash(value), permissions: ['*'], createdAt: new Date(), expiresAt: null, isActive: true, ipWhitelist: null, lastUsedAt: null },
    account: { id: 'a', name: 'a', tier: 'DEVELOPER' as const, limits: null, feeBasisPoints: null, createdAt: new Date() },
  };
  const store = { findByHash: async () => (lookups++, row) } as unknown as ApiKeyStore;
  let trusted = false;
  const auth = new Authenticator({ keys: store, cache: new KeyCache({ max: 10, ttlMs: 60_000 }), cacheTrusted: () => trusted, hash, adminToken: null });
  const creds = { authorization: `Bearer ${value}`, apiKey: '' };
  await auth.authorize({ kind: 'key' }, creds, '1.1.1.1');
  await auth.authorize({ kind: 'key' }, creds, '1.1.1.1');
  t.equal(lookups, 2, 'every request reads the store');
  trusted = true;
  await auth.authorize({ kind: 'key' }, creds, '1.1.1.1');
  await auth.authorize({ kind: 'key' }, creds, '1.1.1.1');
  t.equal(lookups, 3, 'cached again once the subscription is healthy');
});
