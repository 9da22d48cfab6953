/**
 * StatsD metrics observed on the wire: the server runs with BATON_STATSD pointing at a UDP
 * socket of this test, and the datagrams it sends are parsed back into metrics.
 */
import dgram from 'node:dgram';
import t from 'tap';
import { api, createAccountWithKey, startServer } from '../helpers/server.js';

interface Datum {
  readonly name: string;
  readonly value: string;
  readonly type: string;
  readonly tags: Readonly<Record<string, string>>;
}

const received: Datum[] = [];
const socket = dgram.createSocket('udp4');
socket.on('message', (packet) => {
  for (const line of packet.toString().split('\n')) {
    const match = /^([^:]+):([^|]+)\|([a-z]+)(?:\|@[\d.]+)?(?:\|#(.*))?$/.exec(line);
    if (match === null) continue;
    const tags: Record<string, string> = {};
    for (const tag of (match[4] ?? '').split(',')) {
      const at = tag.indexOf(':');
      if (at > 0) tags[tag.slice(0, at)] = tag.slice(at + 1);
    }
    received.push({ name: match[1]!, value: match[2]!, type: match[3]!, tags });
  }
});
await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
t.teardown(() => socket.close());
const statsdPort = socket.address().port;

const server = await startServer(t, { mode: 'embedded', env: { BATON_STATSD: `127.0.0.1:${statsdPort}` } });

/** Resolves with the first datum matching, waiting for the server's next flush if needed. */
async function eventually(match: (d: Datum) => boolean): Promise<Datum> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = received.find(match);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`metric not received; got: ${received.map((d) => d.name).join(', ')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('a request is counted and timed with its route, method and status as tags', async (t) => {
  await api(server, 'GET', '/health');
  const count = await eventually((d) => d.name === 'baton.http.requests' && d.tags.route === 'health');
  t.equal(count.type, 'c');
  t.same({ ...count.tags }, { worker: '0', route: 'health', method: 'GET', status: '200', status_class: '2xx' });
  const latency = await eventually((d) => d.name === 'baton.http.latency' && d.tags.route === 'health');
  t.equal(latency.type, 'ms');
  t.ok(Number(latency.value) >= 0);
});

t.test('a route pattern with a parameter becomes one tag value, whatever the id', async (t) => {
  const { key } = await createAccountWithKey(server);
  await api(server, 'GET', '/v1/api-keys/key_nope/activity', { key });
  const d = await eventually((d) => d.name === 'baton.http.requests' && d.tags.status === '404');
  t.equal(d.tags.route, 'v1_api-keys_id_activity');
  t.equal(d.tags.status_class, '4xx');
});

t.test('a rate-limit refusal is counted with the tier and the refusing window', async (t) => {
  const { key } = await createAccountWithKey(server, 'DEVELOPER');
  let refused = 0;
  // 101 requests always suffice in one minute; a minute boundary in between needs up to 201.
  for (let i = 0; i < 201 && refused === 0; i++) {
    if ((await api(server, 'GET', '/v1/auth/test', { key })).status === 429) refused++;
  }
  t.equal(refused, 1);
  const d = await eventually((d) => d.name === 'baton.ratelimit.rejected');
  t.equal(d.type, 'c');
  t.equal(d.tags.tier, 'DEVELOPER');
  t.equal(d.tags.window, 'minute');
});
