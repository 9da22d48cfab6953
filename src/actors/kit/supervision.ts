/**
 * Supervision policies (nact `onCrash`, typed as `CrashPolicy`): a restart budget in a sliding
 * window (OTP's intensity/period), and fail-fast for actors whose work must not run twice.
 */
import { realClock, type Clock } from './clock.js';
import type { KitLogger } from './logger.js';
import { Directive, type Crash, type CrashPolicy } from './nact.js';

export interface RestartBudgetOptions {
  /** Restarts allowed within the window; the next fault inside it exhausts the budget. */
  readonly maxRestarts: number;
  readonly withinMs: number;
  readonly logger: KitLogger;
  readonly clock?: Clock;
  /** Once exhausted: hand the fault to the parent (default), or stop the actor. */
  readonly onExhausted?: 'escalate' | 'stop';
}

/** Reads a message's `type` for logs without trusting its shape. */
export function messageTypeOf(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const type: unknown = (message as Record<string, unknown>).type;
  return typeof type === 'string' ? type : undefined;
}

/**
 * Restarts (resets) the faulted actor up to `maxRestarts` times in any `withinMs` window, then
 * escalates or stops. Applied to a child's escalation, restarts/stops that child instead. One
 * policy may serve many actors: the history is kept per faulted actor path and forgotten once
 * the budget is exhausted (so a restart by the parent starts a fresh budget).
 */
export function restartBudget(options: RestartBudgetOptions): CrashPolicy {
  const { maxRestarts, withinMs, logger, clock = realClock, onExhausted = 'escalate' } = options;
  if (!Number.isInteger(maxRestarts) || maxRestarts < 0) throw new RangeError('maxRestarts must be an integer >= 0');
  if (!(withinMs > 0)) throw new RangeError('withinMs must be > 0');
  const history = new Map<string, number[]>();

  return (crash: Crash): Directive => {
    const nowMs = clock.now();
    // Drop expired windows of every actor so paths of long-gone actors do not accumulate.
    for (const [path, times] of history) {
      while (times.length > 0 && (times[0] ?? 0) <= nowMs - withinMs) times.shift();
      if (times.length === 0) history.delete(path);
    }
    const times = history.get(crash.faultedPath) ?? [];
    const context = {
      actor: crash.faultedPath,
      supervisor: crash.selfPath,
      messageType: messageTypeOf(crash.message),
      err: crash.error,
      restarts: times.length,
      maxRestarts,
      withinMs,
    };
    if (times.length < maxRestarts) {
      times.push(nowMs);
      history.set(crash.faultedPath, times);
      logger.warn(context, 'actor faulted; restarting it');
      return crash.child ? Directive.resetChild : Directive.reset;
    }
    history.delete(crash.faultedPath);
    if (onExhausted === 'stop') {
      logger.error(context, 'actor faulted; restart budget exhausted, stopping it');
      return crash.child ? Directive.stopChild : Directive.stop;
    }
    logger.error(context, 'actor faulted; restart budget exhausted, escalating');
    return Directive.escalate;
  };
}

/** What the owner of a fail-fast actor learns when it faults. */
export interface ActorFailure {
  readonly path: string;
  readonly error: unknown;
  readonly messageType: string | undefined;
}

export interface FailFastOptions {
  readonly logger: KitLogger;
  /** Called once per fault, before the actor stops; e.g. marks the execution FAILED. Must not throw. */
  readonly onFailed: (failure: ActorFailure) => void;
}

/**
 * For per-execution actors: a fault (its own or a child's) stops the actor and its subtree, never
 * restarts it, so non-idempotent work is not run a second time.
 */
export function failFast(options: FailFastOptions): CrashPolicy {
  const { logger, onFailed } = options;
  return (crash: Crash): Directive => {
    const failure: ActorFailure = {
      path: crash.faultedPath,
      error: crash.error,
      messageType: messageTypeOf(crash.message),
    };
    logger.error({ actor: failure.path, messageType: failure.messageType, err: failure.error }, 'actor faulted; stopping it (fail-fast)');
    try {
      onFailed(failure);
    } catch (err) {
      logger.error({ actor: failure.path, err }, 'fail-fast callback threw');
    }
    return Directive.stop;
  };
}
