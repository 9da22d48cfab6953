/** The actor kit: everything the rest of the code needs from nact, typed, plus ask, timers and supervision. */
export { ask, reply } from './ask.js';
export { realClock, type Clock } from './clock.js';
export { defineActor, spawnActor, type ActorDefinition, type ActorKit, type SpawnActorOptions } from './define.js';
export { AskTargetStopped, AskTimeout } from './errors.js';
export { silentLogger, type KitLogger } from './logger.js';
export { createManualClock, type ManualClock } from './manual-clock.js';
export {
  Directive,
  dispatch,
  spawn,
  spawnStateless,
  start,
  stop,
  type ActorContext,
  type ActorFn,
  type ActorPath,
  type ActorProps,
  type Crash,
  type CrashPolicy,
  type ParentRef,
  type Ref,
  type StatelessActorFn,
  type StatelessActorProps,
  type SystemRef,
} from './nact.js';
export type { Message, RepliesOf, ReplyRef } from './protocol.js';
export { failFast, messageTypeOf, restartBudget, type ActorFailure, type FailFastOptions, type RestartBudgetOptions } from './supervision.js';
export { retryWithin, withRetries, type RetryOptions } from './retry.js';
export { createKeyedTimers, type KeyedTimers, type TimerTick } from './timers.js';
