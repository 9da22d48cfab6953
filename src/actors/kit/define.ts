/**
 * Typed stateful actors in a few lines: a definition (initial state, handler, optional cleanup)
 * spawned with keyed timers that are cancelled whenever the actor stops or restarts, and stale
 * timer firings filtered out before the handler sees them.
 */
import { realClock, type Clock } from './clock.js';
import { spawn, stop, dispatch, type ActorContext, type CrashPolicy, type ParentRef, type Ref } from './nact.js';
import type { Message } from './protocol.js';
import { createKeyedTimers, isTimerTick, type KeyedTimers } from './timers.js';

/** What a handler gets besides state and message. */
export interface ActorKit<Msg> {
  readonly self: Ref<Msg>;
  /** The actor's path, for log context. */
  readonly path: string;
  readonly timers: KeyedTimers<Msg>;
  readonly clock: Clock;
  /** Stops this actor and its subtree once the current message is handled. */
  stopSelf(): void;
}

export interface ActorDefinition<State, Msg extends Message> {
  /** Builds the state at start and again after every restart (timers were already cancelled). */
  readonly init: (kit: ActorKit<Msg>) => State;
  /**
   * Handles one message; messages are handled one at a time, awaiting a returned promise first.
   * A message carrying `timer` (a `TimerTick`) arrives only if it is its key's current firing.
   */
  readonly handle: (state: State, msg: Msg, kit: ActorKit<Msg>) => State | Promise<State>;
  /** Extra cleanup after a stop; timers are already cancelled. Not called on restart. */
  readonly afterStop?: (state: State, kit: ActorKit<Msg>) => void;
}

/** Identity, for inference: `defineActor<State, Msg>({ init, handle })`. */
export function defineActor<State, Msg extends Message>(definition: ActorDefinition<State, Msg>): ActorDefinition<State, Msg> {
  return definition;
}

export interface SpawnActorOptions {
  /** Unique among the parent's children; URL-safe characters only. Default: generated. */
  readonly name?: string;
  /** Default: escalate to the parent. */
  readonly onCrash?: CrashPolicy;
  readonly clock?: Clock;
}

function timerOf(msg: Message): unknown {
  return (msg as { readonly timer?: unknown }).timer;
}

/** Spawns `definition` under `parent`; throws if the name is taken or invalid, or the parent is gone. */
export function spawnActor<State, Msg extends Message>(
  parent: ParentRef,
  definition: ActorDefinition<State, Msg>,
  options: SpawnActorOptions = {},
): Ref<Msg> {
  const clock = options.clock ?? realClock;
  let current: ActorKit<Msg> | undefined;

  const incarnation = (ctx: ActorContext<Msg>): ActorKit<Msg> => {
    current?.timers.cancelAll();
    const self = ctx.self;
    current = {
      self,
      path: ctx.path.toString(),
      timers: createKeyedTimers<Msg>((msg) => dispatch(self, msg), clock),
      clock,
      stopSelf: () => stop(self),
    };
    return current;
  };

  return spawn<State, Msg>(
    parent,
    (state, msg, ctx) => {
      const kit = current ?? incarnation(ctx);
      const timer = timerOf(msg);
      if (isTimerTick(timer) && !kit.timers.accept(timer)) return state;
      return definition.handle(state, msg, kit);
    },
    options.name,
    {
      initialStateFunc: (ctx) => definition.init(incarnation(ctx)),
      ...(options.onCrash ? { onCrash: options.onCrash } : {}),
      afterStop: (state, ctx) => {
        const kit = current ?? incarnation(ctx);
        kit.timers.cancelAll();
        definition.afterStop?.(state, kit);
      },
    },
  );
}
