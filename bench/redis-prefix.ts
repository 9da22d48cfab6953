/** Deletes every Redis key under a prefix (a bench run's own keys), in SCAN pages. */
import { Redis } from 'ioredis';

export async function deleteRedisPrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (found.length > 0) await redis.del(...found);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
