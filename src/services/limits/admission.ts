/**
 * Admission control: before anything is recorded, a new execution (or workflow run) is refused
 * with 503 OVERLOADED when this worker cannot keep up, so that what it accepts it completes.
 * Four signals, each against a bound from the configuration (README "Admission and overload"):
 * - backlog: executions started on this worker and not finished;
 * - saturation: while the event loop is busy ≥ 90% of the time (the worker is at capacity), a
 *   backlog longer than what the worker completes in `maxBacklogMs` (Little's law on the
 *   completion rate measured meanwhile). Accepting more then only lengthens everyone's wait and
 *   spends the CPU the backlog needs; with an idle loop (slow agents) any backlog is fine;
 * - event-loop delay: mean over the last sampling window (perf_hooks monitorEventLoopDelay);
 * - agent queue wait: the longest wait for an agent slot seen in the last two windows.
 * Reads, cancels and approvals never pass through here.
 */
import { monitorEventLoopDelay, performance, type EventLoopUtilization, type IntervalHistogram } from 'node:perf_hooks';
import { overloaded } from '../../domain/errors.js';

export interface AdmissionBounds {
  readonly maxBacklog: number;
  /** Under saturation, the most backlog accepted, in milliseconds of completions; absent: no such bound. */
  readonly maxBacklogMs?: number;
  readonly maxEventLoopDelayMs: number;
  readonly maxAgentQueueWaitMs: number;
}

export interface Admission {
  /** Throws 503 OVERLOADED when a bound is passed. */
  check(): void;
  /**
   * `check`, then holds a backlog place until the returned function is called (after `started`,
   * or on refusal), so that concurrent submissions cannot all pass the same last place.
   */
  enter(): () => void;
  /** An execution started on this worker (counted until `finished`). */
  started(executionId: string): void;
  finished(executionId: string): void;
  /** How long an agent call waited for a slot. */
  queueWaited(waitedMs: number): void;
  readonly backlog: number;
  stop(): void;
}

const WINDOW_MS = 500;
/** Event-loop utilization from which the worker counts as saturated. */
const SATURATED_UTILIZATION = 0.9;
/** A backlog this small is always accepted, so a cold start or a quiet spell never refuses. */
const MIN_SATURATED_BACKLOG = 64;
/** Weight of the newest window in the completion rate. */
const RATE_ALPHA = 0.3;
/** An execution cannot outlive its overall deadline (30 min): older entries were missed ends. */
const FORGET_AFTER_MS = 31 * 60_000;

export function createAdmission(bounds: AdmissionBounds, now: () => number = Date.now): Admission {
  const live = new Map<string, number>();
  let entering = 0;
  const histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let loopDelayMs = 0;
  let waitThisWindow = 0;
  let waitLastWindow = 0;
  let elu: EventLoopUtilization = performance.eventLoopUtilization();
  let utilization = 0;
  let finishedThisWindow = 0;
  /** Completions per second, smoothed; measured only over windows with a backlog (what it can do, not what it was sent). */
  let completionRate = 0;
  const timer = setInterval(() => {
    const current = performance.eventLoopUtilization();
    utilization = performance.eventLoopUtilization(current, elu).utilization;
    elu = current;
    if (live.size > 0 || finishedThisWindow > 0) {
      const rate = (finishedThisWindow * 1000) / WINDOW_MS;
      completionRate = completionRate === 0 ? rate : completionRate * (1 - RATE_ALPHA) + rate * RATE_ALPHA;
    }
    finishedThisWindow = 0;
    // mean is NaN before the first sample.
    loopDelayMs = Number.isFinite(histogram.mean) ? histogram.mean / 1e6 : 0;
    histogram.reset();
    waitLastWindow = waitThisWindow;
    waitThisWindow = 0;
    const cutoff = now() - FORGET_AFTER_MS;
    for (const [id, at] of live) {
      if (at >= cutoff) break;
      live.delete(id);
    }
  }, WINDOW_MS);
  timer.unref();

  return {
    enter() {
      this.check();
      entering += 1;
      let left = false;
      return () => {
        if (left) return;
        left = true;
        entering -= 1;
      };
    },
    check() {
      const backlog = live.size + entering;
      if (backlog >= bounds.maxBacklog) {
        throw overloaded('backlog', `${backlog} executions are running or being accepted on this worker (bound ${bounds.maxBacklog})`, 1);
      }
      if (bounds.maxBacklogMs !== undefined && utilization >= SATURATED_UTILIZATION) {
        const bound = Math.max(MIN_SATURATED_BACKLOG, Math.round((completionRate * bounds.maxBacklogMs) / 1000));
        if (backlog >= bound) {
          throw overloaded(
            'saturated',
            `the worker is saturated (event loop busy ${Math.round(utilization * 100)}%) and ${backlog} executions wait; it completes about ${Math.round(completionRate)} per second (bound ${bounds.maxBacklogMs} ms of backlog)`,
            1,
          );
        }
      }
      if (loopDelayMs > bounds.maxEventLoopDelayMs) {
        throw overloaded('event_loop_delay', `event-loop delay ${Math.round(loopDelayMs)} ms (bound ${bounds.maxEventLoopDelayMs} ms)`, 1);
      }
      const waitMs = Math.max(waitThisWindow, waitLastWindow);
      if (waitMs > bounds.maxAgentQueueWaitMs) {
        throw overloaded('agent_queue_wait', `agent calls wait ${Math.round(waitMs)} ms for a slot (bound ${bounds.maxAgentQueueWaitMs} ms)`, Math.max(1, Math.ceil(waitMs / 1000)));
      }
    },
    started(executionId) {
      if (!live.has(executionId)) live.set(executionId, now());
    },
    finished(executionId) {
      if (live.delete(executionId)) finishedThisWindow += 1;
    },
    queueWaited(waitedMs) {
      if (waitedMs > waitThisWindow) waitThisWindow = waitedMs;
    },
    get backlog() {
      return live.size;
    },
    stop() {
      clearInterval(timer);
      histogram.disable();
    },
  };
}
