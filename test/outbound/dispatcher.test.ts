import { promisify } from 'node:util';
import type { LookupAddress } from 'node:dns';
import t from 'tap';
import { request } from 'undici';
import { createGuardedLookup, createOutboundDispatcher } from '../../src/adapters/outbound/dispatcher.js';
import type { Resolver, ResolvedAddress } from '../../src/adapters/outbound/dispatcher.js';
import { checkUrlSyntax, isUrlNotAllowedError } from '../../src/domain/url-policy.js';
import { startMockAgent } from '../fixtures/mock-agent-fleet.js';

/** A resolver answering from a table, counting lookups; unknown names fail like DNS does. */
function tableResolver(table: Record<string, readonly ResolvedAddress[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (hostname: string): Promise<readonly ResolvedAddress[]> => {
    calls.push(hostname);
    const found = table[hostname];
    if (found === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found;
  };
  return Object.assign(resolver, { calls });
}

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  return null;
}

t.test('a name that passed the URL check but resolves to a private address is refused at connect time', async (t) => {
  const agent = await startMockAgent();
  t.teardown(() => agent.close());
  const resolver = tableResolver({ 'agent.example.com': [{ address: '127.0.0.1', family: 4 }] });
  const dispatcher = createOutboundDispatcher({ allowPrivate: false, resolver });
  t.teardown(() => dispatcher.close());
  const url = `https://agent.example.com:${agent.port}/health`;

  t.ok(checkUrlSyntax(url, { allowPrivate: false }).ok, 'the URL itself looks fine');
  const err = await refusal(request(url, { dispatcher }));
  t.ok(isUrlNotAllowedError(err), 'refused by the policy');
  if (isUrlNotAllowedError(err)) {
    t.equal(err.reason, 'blocked_address');
    t.equal(err.address, '127.0.0.1');
  }
  t.same(resolver.calls, ['agent.example.com'], 'the name was resolved when connecting');
  t.equal(agent.connectionCount, 0, 'no connection reached the address');
});

t.test('a rebinding name is refused on the call after it turns private', async (t) => {
  let answer: ResolvedAddress = { address: '127.0.0.1', family: 4 };
  const resolver: Resolver = async () => [answer];
  const agent = await startMockAgent();
  t.teardown(() => agent.close());
  // allowPrivate=true stands in for "public" here: the first answer must connect, the second not.
  const dispatcher = createOutboundDispatcher({ allowPrivate: true, resolver });
  t.teardown(() => dispatcher.close());
  // reset: the socket closes after the answer, so the next call must connect (and resolve) again.
  const first = await request(`http://rebind.test:${agent.port}/health`, { dispatcher, reset: true });
  t.equal(first.statusCode, 200);
  await first.body.text();

  answer = { address: '169.254.169.254', family: 4 };
  const err = await refusal(request(`http://rebind.test:${agent.port}/health`, { dispatcher }));
  t.ok(isUrlNotAllowedError(err), 'the metadata address is refused on the new connection');
});

t.test('a name resolving to both public and private addresses is refused', async (t) => {
  const resolver = tableResolver({
    'mixed.example.com': [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.5', family: 4 }],
  });
  const dispatcher = createOutboundDispatcher({ allowPrivate: false, resolver });
  t.teardown(() => dispatcher.close());
  const err = await refusal(request('https://mixed.example.com/', { dispatcher }));
  t.ok(isUrlNotAllowedError(err));
});

t.test('a literal private IP is refused without a DNS lookup', async (t) => {
  const resolver = tableResolver({});
  const dispatcher = createOutboundDispatcher({ allowPrivate: false, resolver });
  t.teardown(() => dispatcher.close());
  for (const url of ['https://127.0.0.1:9/', 'https://[::1]:9/', 'https://[::ffff:10.0.0.1]:9/', 'https://169.254.169.254/']) {
    const err = await refusal(request(url, { dispatcher }));
    t.ok(isUrlNotAllowedError(err), url);
  }
  t.same(resolver.calls, []);
});

t.test('plain http is refused unless private URLs are allowed', async (t) => {
  const dispatcher = createOutboundDispatcher({ allowPrivate: false, resolver: tableResolver({}) });
  t.teardown(() => dispatcher.close());
  const err = await refusal(request('http://agent.example.com/', { dispatcher }));
  t.ok(isUrlNotAllowedError(err));
  if (isUrlNotAllowedError(err)) t.equal(err.reason, 'scheme');
});

t.test('allowPrivate lets a call to 127.0.0.1 through and keeps the connection alive', async (t) => {
  const agent = await startMockAgent();
  t.teardown(() => agent.close());
  const dispatcher = createOutboundDispatcher({ allowPrivate: true });
  t.teardown(() => dispatcher.close());
  for (let i = 0; i < 3; i++) {
    const res = await request(`${agent.url}/health`, { dispatcher });
    t.equal(res.statusCode, 200);
    await res.body.text();
    // undici frees the socket for reuse on the tick after the body ends.
    await new Promise((resolve) => setImmediate(resolve));
  }
  t.equal(agent.connectionCount, 1, 'three requests, one connection');
});

t.test('allowPrivate still refuses the cloud metadata address', async (t) => {
  const dispatcher = createOutboundDispatcher({ allowPrivate: true });
  t.teardown(() => dispatcher.close());
  const err = await refusal(request('http://169.254.169.254/latest/meta-data/', { dispatcher }));
  t.ok(isUrlNotAllowedError(err));
});

t.test('the guarded lookup answers both the single and the all-addresses form of net.connect', async (t) => {
  const resolver = tableResolver({
    'dual.example.com': [{ address: '2606:4700::1', family: 6 }, { address: '93.184.216.34', family: 4 }],
  });
  const lookup = createGuardedLookup(resolver, { allowPrivate: false });
  const single = await new Promise<[string, number | undefined]>((resolve, reject) => {
    lookup('dual.example.com', { family: 4 }, (err, address, family) => {
      if (err) reject(err);
      else resolve([address as string, family]);
    });
  });
  t.same(single, ['93.184.216.34', 4]);
  const all = await promisify((cb: (err: Error | null, addresses: LookupAddress[]) => void) => {
    lookup('dual.example.com', { all: true }, (err, addresses) => cb(err, addresses as LookupAddress[]));
  })();
  t.same(all, [{ address: '2606:4700::1', family: 6 }, { address: '93.184.216.34', family: 4 }]);
});

t.test('an unresolvable name fails with the DNS error, not a policy refusal', async (t) => {
  const lookup = createGuardedLookup(tableResolver({}), { allowPrivate: false });
  const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    lookup('nowhere.example.com', {}, (e) => resolve(e));
  });
  t.equal(err?.code, 'ENOTFOUND');
  t.notOk(isUrlNotAllowedError(err));
});
