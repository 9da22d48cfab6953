// Integration test: needs a real Redis (REDIS_URL).
import { Redis } from 'ioredis';
import t from 'tap';
import { ioredisCoordination } from '../../src/adapters/stores/redis/index.js';
import { realRedisUrl, uniqueRedisPrefix } from '../helpers/env.js';
import { recordingLogger } from '../helpers/stores.js';

const settle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

t.test('a subscriber whose connection is killed resubscribes and keeps receiving', { skip: realRedisUrl === null }, async (t) => {
  const url = realRedisUrl ?? '';
  const prefix = uniqueRedisPrefix('reconnect');
  const log = recordingLogger();
  const publisher = ioredisCoordination({ url, prefix, log });
  const subscriber = ioredisCoordination({ url, prefix, log });
  const admin = new Redis(url);
  t.teardown(async () => {
    await Promise.all([publisher.close(), subscriber.close()]);
    admin.disconnect();
  });
  const seen: string[] = [];
  await subscriber.subscribe('ctl', (m) => void seen.push(m));

  // Only this test's subscriber connections carry its unique prefix in their names.
  const clients = String(await admin.call('CLIENT', 'LIST'))
    .split('\n')
    .filter((line) => line.includes(`name=${prefix}subscriber:`));
  t.equal(clients.length, 2, 'one subscriber connection per adapter');
  const publishedBefore = await publisher.publish('ctl', 'before');
  t.equal(publishedBefore, 1, 'only the subscribing adapter receives');
  // CLIENT KILL may drop output Redis has not flushed yet; let 'before' arrive first.
  await settle(50);
  for (const line of clients) {
    const id = /\bid=(\d+)/.exec(line)?.[1];
    if (id !== undefined) await admin.call('CLIENT', 'KILL', 'ID', id);
  }

  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline && (await publisher.publish('ctl', 'after')) === 0) await settle(50);
  await settle(50);
  t.same(seen, ['before', 'after']);
});
