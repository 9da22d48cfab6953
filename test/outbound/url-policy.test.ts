import t from 'tap';
import {
  checkUrlSyntax,
  classifyAddress,
  isAddressAllowed,
  MAX_URL_LENGTH,
} from '../../src/domain/url-policy.js';
import type { AddressClass } from '../../src/domain/url-policy.js';

const strict = { allowPrivate: false };
const lax = { allowPrivate: true };

const addresses: ReadonlyArray<readonly [string, AddressClass]> = [
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['11.0.0.1', 'public'],
  ['172.15.255.255', 'public'],
  ['172.32.0.0', 'public'],
  ['100.63.255.255', 'public'],
  ['100.128.0.0', 'public'],
  ['2606:4700:4700::1111', 'public'],
  ['2001:4860:4860::8888', 'public'],
  ['::ffff:8.8.8.8', 'public'],
  ['64:ff9b::8.8.8.8', 'public'],
  ['2002:0808:0808::1', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.1.1', 'link_local'],
  ['169.254.169.254', 'metadata'],
  ['100.100.100.200', 'metadata'],
  ['0.0.0.0', 'unspecified'],
  ['100.64.0.1', 'carrier_grade_nat'],
  ['100.127.255.255', 'carrier_grade_nat'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fc00::1', 'private'],
  ['fd12:3456::1', 'private'],
  ['fe80::1', 'link_local'],
  ['febf:ffff::1', 'link_local'],
  ['ff02::1', 'multicast'],
  ['fd00:ec2::254', 'metadata'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:192.168.0.1', 'private'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::ffff:100.64.0.1', 'carrier_grade_nat'],
  ['64:ff9b::10.0.0.1', 'private'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['2002:7f00:0001::1', 'loopback'],
  ['2002:a9fe:a9fe::1', 'metadata'],
  ['::7f00:1', 'reserved'],
  ['::a00:1', 'reserved'],
  ['2001:db8::1', 'reserved'],
  ['not-an-ip', 'invalid'],
];

t.test('addresses are classed as the table says', async (t) => {
  for (const [address, expected] of addresses) {
    t.equal(classifyAddress(address), expected, address);
  }
});

t.test('only public addresses are allowed by default', async (t) => {
  for (const [address, cls] of addresses) {
    t.equal(isAddressAllowed(classifyAddress(address), strict), cls === 'public', address);
  }
});

t.test('an IPv4-compatible address written with a dotted quad is refused', async (t) => {
  // ipaddr.js reads '::127.0.0.1' as IPv4-mapped; either reading must end refused.
  t.notOk(isAddressAllowed(classifyAddress('::127.0.0.1'), strict));
  t.notOk(isAddressAllowed(classifyAddress('::10.0.0.1'), strict));
});

t.test('allowPrivate lets loopback and private addresses through but never metadata', async (t) => {
  t.ok(isAddressAllowed(classifyAddress('127.0.0.1'), lax));
  t.ok(isAddressAllowed(classifyAddress('10.0.0.1'), lax));
  t.ok(isAddressAllowed(classifyAddress('::1'), lax));
  t.notOk(isAddressAllowed(classifyAddress('169.254.169.254'), lax));
  t.notOk(isAddressAllowed(classifyAddress('::ffff:169.254.169.254'), lax));
  t.notOk(isAddressAllowed(classifyAddress('fd00:ec2::254'), lax));
});

const urls: ReadonlyArray<readonly [string, string, string]> = [
  // [url, result without allowPrivate, result with allowPrivate]
  ['https://agent.example.com', 'ok', 'ok'],
  ['https://agent.example.com:8443/base/path?x=1', 'ok', 'ok'],
  ['http://agent.example.com', 'scheme', 'ok'],
  ['ftp://agent.example.com', 'scheme', 'scheme'],
  ['file:///etc/passwd', 'scheme', 'scheme'],
  ['javascript:alert(1)', 'scheme', 'scheme'],
  ['https://user:secret@agent.example.com', 'credentials', 'credentials'],
  ['https://user@agent.example.com', 'credentials', 'credentials'],
  ['not a url', 'invalid_url', 'invalid_url'],
  ['/relative/path', 'invalid_url', 'invalid_url'],
  [`https://agent.example.com/${'a'.repeat(MAX_URL_LENGTH)}`, 'too_long', 'too_long'],
  ['https://127.0.0.1/', 'blocked_address', 'ok'],
  ['https://10.1.2.3:8080/', 'blocked_address', 'ok'],
  ['https://[::1]/', 'blocked_address', 'ok'],
  ['https://[::ffff:127.0.0.1]/', 'blocked_address', 'ok'],
  ['https://[fe80::1]/', 'blocked_address', 'ok'],
  ['https://0x7f000001/', 'blocked_address', 'ok'],
  ['https://2130706433/', 'blocked_address', 'ok'],
  ['https://127.1/', 'blocked_address', 'ok'],
  ['https://169.254.169.254/latest/meta-data/', 'blocked_address', 'blocked_address'],
  ['https://metadata.google.internal/computeMetadata/v1/', 'blocked_hostname', 'blocked_hostname'],
  ['https://METADATA.Google.Internal./', 'blocked_hostname', 'blocked_hostname'],
  ['https://localhost:8080/', 'blocked_hostname', 'ok'],
  ['https://api.localhost/', 'blocked_hostname', 'ok'],
  ['https://8.8.8.8/', 'ok', 'ok'],
];

t.test('URL syntax checks refuse what the table says, with and without allowPrivate', async (t) => {
  for (const [url, withoutPrivate, withPrivate] of urls) {
    const a = checkUrlSyntax(url, strict);
    const b = checkUrlSyntax(url, lax);
    t.equal(a.ok ? 'ok' : a.reason, withoutPrivate, `${url.slice(0, 60)} (strict)`);
    t.equal(b.ok ? 'ok' : b.reason, withPrivate, `${url.slice(0, 60)} (allowPrivate)`);
  }
});

t.test('a refused URL comes with a message a user can act on', async (t) => {
  const result = checkUrlSyntax('http://agent.example.com', strict);
  t.equal(result.ok, false);
  if (!result.ok) t.match(result.message, /https/);
});
