/** Coordination: Redis when configured, otherwise in-process. */
import type { Coordination } from '../../../ports/coordination.js';
import type { StoreLogger } from '../log.js';
import { ioredisCoordination } from './ioredis-coordination.js';
import { memoryCoordination } from './memory-coordination.js';

export { keys, type RedisKeys } from './keys.js';
export { createMemoryBus, memoryCoordination, type MemoryBus } from './memory-coordination.js';
export { ioredisCoordination } from './ioredis-coordination.js';

export interface CoordinationConfig {
  readonly redisUrl: string | null;
  readonly redisPrefix: string;
}

/** Connects in the background: Redis being down at start-up fails commands, not the open. */
export async function openCoordination(config: CoordinationConfig, log?: StoreLogger): Promise<Coordination> {
  if (config.redisUrl === null) return memoryCoordination(log === undefined ? {} : { log });
  return ioredisCoordination({ url: config.redisUrl, prefix: config.redisPrefix, ...(log === undefined ? {} : { log }) });
}
