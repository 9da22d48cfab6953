/**
 * One actor system per worker process, with a root supervisor under which every per-feature
 * actor is spawned. A feature actor restarts within its own budget; when it escalates (budget
 * spent) the root stops it and tells the worker, whose own supervisor (the primary process)
 * decides what happens next.
 */
import { realClock, type Clock } from './kit/clock.js';
import { defineActor, spawnActor, type ActorDefinition, type SpawnActorOptions } from './kit/define.js';
import type { KitLogger } from './kit/logger.js';
import { reply } from './kit/ask.js';
import { Directive, start, stop, type Crash, type CrashPolicy, type Ref, type SystemRef } from './kit/nact.js';
import type { Message, ReplyRef } from './kit/protocol.js';
import { messageTypeOf, restartBudget } from './kit/supervision.js';

export interface RootPong {
  readonly type: 'root.pong';
}

/** The root answers pings (a liveness check of the actor system); its real job is supervision. */
export type RootMessage = { readonly type: 'root.ping'; readonly replyTo: ReplyRef<RootPong> };

export interface ActorSystemOptions {
  readonly logger: KitLogger;
  readonly clock?: Clock;
  /** Actor system name, shown in actor paths. Default: generated. */
  readonly name?: string;
  /** Default restart budget for children spawned with `spawnChild` without their own `onCrash`. */
  readonly restart?: { readonly maxRestarts: number; readonly withinMs: number };
  /** Called when a child of the root gave up (escalated) and was stopped. Must not throw. */
  readonly onChildFailed?: (crash: Crash) => void;
}

export interface ActorRuntime {
  readonly system: SystemRef;
  readonly root: Ref<RootMessage>;
  readonly clock: Clock;
  /** Spawns a feature actor under the root; `onCrash` defaults to the system's restart budget. */
  spawnChild<State, Msg extends Message>(definition: ActorDefinition<State, Msg>, options?: SpawnActorOptions): Ref<Msg>;
  /** Stops every actor (their timers cancelled, their `afterStop` run), then the system. */
  stop(): Promise<void>;
}

const DEFAULT_RESTART = { maxRestarts: 3, withinMs: 60_000 } as const;

const rootActor = defineActor<null, RootMessage>({
  init: () => null,
  handle: (state, msg) => {
    switch (msg.type) {
      case 'root.ping':
        reply(msg.replyTo, { type: 'root.pong' });
        return state;
    }
  },
});

function rootPolicy(logger: KitLogger, onChildFailed: ((crash: Crash) => void) | undefined): CrashPolicy {
  return (crash) => {
    if (!crash.child) {
      logger.error({ actor: crash.selfPath, err: crash.error, messageType: messageTypeOf(crash.message) }, 'root supervisor faulted; resuming');
      return Directive.resume;
    }
    logger.error(
      { actor: crash.faultedPath, err: crash.error, messageType: messageTypeOf(crash.message) },
      'actor gave up after its restart budget; stopping it',
    );
    try {
      onChildFailed?.(crash);
    } catch (err) {
      logger.error({ actor: crash.faultedPath, err }, 'onChildFailed threw');
    }
    return Directive.stopChild;
  };
}

/** Starts this worker's actor system and its root supervisor. */
export function startActorSystem(options: ActorSystemOptions): ActorRuntime {
  const { logger, clock = realClock, onChildFailed } = options;
  const restart = options.restart ?? DEFAULT_RESTART;
  const system = start(options.name === undefined ? {} : { name: options.name });
  const root = spawnActor(system, rootActor, { name: 'root', clock, onCrash: rootPolicy(logger, onChildFailed) });
  const defaultPolicy = restartBudget({ ...restart, logger, clock, onExhausted: 'escalate' });
  let stopped: Promise<void> | undefined;

  return {
    system,
    root,
    clock,
    spawnChild: (definition, spawnOptions = {}) =>
      spawnActor(root, definition, { clock, onCrash: defaultPolicy, ...spawnOptions }),
    stop: () => {
      stopped ??= new Promise<void>((resolve) => {
        stop(system);
        // nact runs afterStop hooks on a later turn; this one runs after them.
        setImmediate(resolve);
      });
      return stopped;
    },
  };
}
