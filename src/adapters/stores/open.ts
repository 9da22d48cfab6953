/** Wiring: the only module outside the adapters that picks them, from configuration. */
import type { Config } from '../../support/config.js';
import type { StoreLogger } from './log.js';
import type { Coordination } from '../../ports/coordination.js';
import type { DurableStores } from '../../ports/durable.js';
import { openCoordination } from './redis/index.js';
import { openDurableStores, type DurableOptions } from './sql/index.js';

export interface Stores {
  readonly durable: DurableStores;
  readonly coordination: Coordination;
  close(): Promise<void>;
}

export interface OpenStoresOptions extends DurableOptions {
  readonly log?: StoreLogger;
}

/** Opens durable stores (running migrations unless skipped) and coordination. */
export async function openStores(config: Config, options: OpenStoresOptions = {}): Promise<Stores> {
  const durable = await openDurableStores(
    { databaseUrl: config.databaseUrl, dataDir: config.dataDir, databaseSchema: config.databaseSchema, pgliteThread: config.embeddedDbThread },
    options,
  );
  let coordination: Coordination;
  try {
    coordination = await openCoordination({ redisUrl: config.redisUrl, redisPrefix: config.redisPrefix }, options.log);
  } catch (err) {
    await durable.close();
    throw err;
  }
  return {
    durable,
    coordination,
    async close(): Promise<void> {
      await Promise.allSettled([coordination.close(), durable.close()]);
    },
  };
}
