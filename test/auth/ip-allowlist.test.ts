import t from 'tap';
import { canonicalAddress, compileAllowlist, findInvalidEntry, resolveClientAddress } from '../../src/domain/ip-allowlist.js';

t.test('an IPv4 CIDR admits addresses inside it and refuses others', async (t) => {
  const list = compileAllowlist(['10.0.0.0/8', '192.168.1.7']);
  t.ok(list.allows('10.255.3.4'));
  t.ok(list.allows('192.168.1.7'));
  t.notOk(list.allows('192.168.1.8'));
  t.notOk(list.allows('11.0.0.1'));
});

t.test('an IPv6 CIDR admits addresses inside it and never matches IPv4', async (t) => {
  const list = compileAllowlist(['2001:db8::/32']);
  t.ok(list.allows('2001:db8:1::5'));
  t.notOk(list.allows('2001:db9::1'));
  t.notOk(list.allows('10.0.0.1'));
});

t.test('an IPv4-mapped IPv6 client matches the IPv4 entry', async (t) => {
  const list = compileAllowlist(['127.0.0.0/8']);
  t.ok(list.allows('::ffff:127.0.0.1'));
  t.ok(compileAllowlist(['::ffff:10.0.0.0/104']).allows('10.1.2.3'));
});

t.test('an unparseable client address is refused', async (t) => {
  t.notOk(compileAllowlist(['0.0.0.0/0']).allows('not-an-ip'));
});

t.test('invalid entries are reported by value', async (t) => {
  t.equal(findInvalidEntry(['10.0.0.0/8', '::1']), null);
  t.equal(findInvalidEntry(['10.0.0.0/33']), '10.0.0.0/33');
  t.equal(findInvalidEntry(['1.2.3.4', 'example.com']), 'example.com');
});

t.test('socket addresses are canonicalised', async (t) => {
  t.equal(canonicalAddress('::ffff:127.0.0.1'), '127.0.0.1');
  t.equal(canonicalAddress('0000:0000:0000:0000:0000:0000:0000:0001'), '::1');
});

t.test('X-Forwarded-For is ignored unless the peer is a trusted proxy', async (t) => {
  t.equal(resolveClientAddress('203.0.113.9', '1.2.3.4', null), '203.0.113.9');
  const trusted = compileAllowlist(['10.0.0.0/8']);
  t.equal(resolveClientAddress('203.0.113.9', '1.2.3.4', trusted), '203.0.113.9', 'untrusted peer');
  t.equal(resolveClientAddress('10.0.0.2', '1.2.3.4', trusted), '1.2.3.4');
});

t.test('the first untrusted hop from the right is the client', async (t) => {
  const trusted = compileAllowlist(['10.0.0.0/8']);
  t.equal(resolveClientAddress('10.0.0.2', '6.6.6.6, 1.2.3.4, 10.0.0.9', trusted), '1.2.3.4', 'a spoofed left-most entry is not believed');
  t.equal(resolveClientAddress('10.0.0.2', 'garbage', trusted), '10.0.0.2', 'an unparseable hop falls back to the peer');
});
