/** What route handlers may use. Built once per worker by `src/worker.ts`. */
import type { KeyRevocations } from './auth/revocations.js';
import type { KeyHasher } from './auth/key-material.js';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import type { Metrics } from './metrics/index.js';
import type { Coordination, DurableStores } from './stores/ports.js';

export interface Services {
  readonly config: Config;
  readonly logger: Logger;
  readonly version: string;
  readonly stores: DurableStores;
  readonly coordination: Coordination;
  readonly hashKey: KeyHasher;
  readonly revocations: KeyRevocations;
  /** StatsD metrics (a no-op when BATON_STATSD is unset); see docs/metrics.md. */
  readonly metrics: Metrics;
}
