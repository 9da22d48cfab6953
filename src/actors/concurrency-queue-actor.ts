/**
 * ConcurrencyQueueActor (DESIGN §5, §9, §10): one per worker, behind the `Concurrency` facade
 * (src/services/limits/concurrency.ts). Frees slots when holders end and starts the holders
 * promoted into them on this worker, through the starters registered with the facade
 * (orchestration executions, workflow runs), so a queued execution
 * starts as soon as a slot frees on any node. On a keyed timer it runs the recovery scan that
 * takes over executions whose owner's lease lapsed (src/services/orchestration/recovery.ts).
 *
 * Store calls are not awaited inside the handler: releases from many executions are in flight
 * together (each is one atomic script), and a slow scan never holds up a release.
 */
import type { PromotionStarter } from '../ports/limits.js';
import type { ConcurrencyQueueMessage } from './concurrency-queue-protocol.js';
import { defineActor, dispatch, type ActorKit, type KitLogger, type Ref } from './kit/index.js';
import type { ActorRuntime } from './root-supervisor.js';

export interface ConcurrencyQueueDeps {
  /** The store's atomic release: frees the holder's slot or place; returns the holders promoted into slots. */
  readonly releaseSlot: (accountId: string, holderId: string) => Promise<readonly string[]>;
  /** Asked in order to start a promoted holder; the facade's addStarter appends to it. */
  readonly starters: readonly PromotionStarter[];
  /** The recovery scan; `first` is the scan at start. Absent: no scans (tests). */
  readonly recover?: (first: boolean) => Promise<void>;
  readonly scanEveryMs: number;
  readonly logger: KitLogger;
  /** Between asking the starters again about a holder nobody knew. Default 200 ms. */
  readonly unclaimedRetryMs?: number;
  /** Attempts before a holder nobody knows gives its slot up. Default 5. */
  readonly unclaimedAttempts?: number;
}

interface State {
  scanning: boolean;
  scans: number;
}

type Kit = ActorKit<ConcurrencyQueueMessage>;

export function concurrencyQueueActor(deps: ConcurrencyQueueDeps) {
  const retryMs = deps.unclaimedRetryMs ?? 200;
  const attempts = deps.unclaimedAttempts ?? 5;
  return defineActor<State, ConcurrencyQueueMessage>({
    init: (kit) => {
      // The first scan at once: in embedded mode it recovers what a crash left live.
      if (deps.recover !== undefined) kit.timers.start('scan', 0, (timer) => ({ type: 'concurrency.scan', timer }));
      return { scanning: false, scans: 0 };
    },
    handle: (state, msg, kit) => {
      switch (msg.type) {
        case 'concurrency.release':
          release(deps, kit, msg.accountId, msg.holderId);
          return state;
        case 'concurrency.promoted':
          for (const holderId of msg.holderIds) void startPromoted(deps, kit, msg.accountId, holderId, msg.attempt);
          return state;
        case 'concurrency.unclaimed':
          if (msg.attempt >= attempts) {
            // Never recorded (its submit failed after taking the place) or unknown to every
            // starter: the slot goes to the next holder. A live execution left without a place is
            // re-queued by the recovery scan.
            deps.logger.warn({ holderId: msg.holderId, accountId: msg.accountId }, 'promoted holder unknown to every starter; slot released');
            release(deps, kit, msg.accountId, msg.holderId);
            return state;
          }
          kit.timers.start(`retry:${msg.holderId}`, retryMs * msg.attempt, (timer) => ({
            type: 'concurrency.retry',
            accountId: msg.accountId,
            holderId: msg.holderId,
            attempt: msg.attempt + 1,
            timer,
          }));
          return state;
        case 'concurrency.retry':
          void startPromoted(deps, kit, msg.accountId, msg.holderId, msg.attempt);
          return state;
        case 'concurrency.scan': {
          if (deps.recover === undefined || state.scanning) return state;
          state.scanning = true;
          const first = state.scans === 0;
          state.scans++;
          const self = kit.self;
          deps.recover(first).then(
            () => dispatch(self, { type: 'concurrency.scanned' }),
            (error: unknown) => {
              deps.logger.warn({ err: error }, 'recovery scan failed; retrying on the next tick');
              dispatch(self, { type: 'concurrency.scanned' });
            },
          );
          return state;
        }
        case 'concurrency.scanned':
          state.scanning = false;
          kit.timers.start('scan', deps.scanEveryMs, (timer) => ({ type: 'concurrency.scan', timer }));
          return state;
      }
    },
  });
}

function release(deps: ConcurrencyQueueDeps, kit: Kit, accountId: string, holderId: string): void {
  const self = kit.self;
  deps.releaseSlot(accountId, holderId).then(
    (promoted) => {
      if (promoted.length > 0) dispatch(self, { type: 'concurrency.promoted', accountId, holderIds: promoted, attempt: 1 });
    },
    (error: unknown) => deps.logger.error({ err: error, accountId, holderId }, 'releasing a concurrency slot failed; its lease will lapse'),
  );
}

async function startPromoted(deps: ConcurrencyQueueDeps, kit: Kit, accountId: string, holderId: string, attempt: number): Promise<void> {
  const self = kit.self;
  for (const starter of deps.starters) {
    let outcome;
    try {
      outcome = await starter.start(accountId, holderId);
    } catch (error) {
      deps.logger.warn({ err: error, holderId }, 'starting a promoted holder failed; asking again');
      outcome = 'unknown' as const;
    }
    if (outcome === 'started') return;
    if (outcome === 'finished') {
      dispatch(self, { type: 'concurrency.release', accountId, holderId });
      return;
    }
  }
  dispatch(self, { type: 'concurrency.unclaimed', accountId, holderId, attempt });
}

/** Spawns the actor under the worker's root. */
export function spawnConcurrencyQueue(runtime: Pick<ActorRuntime, 'spawnChild'>, deps: ConcurrencyQueueDeps, name = 'concurrency'): Ref<ConcurrencyQueueMessage> {
  return runtime.spawnChild(concurrencyQueueActor(deps), { name });
}
