/**
 * Admission control: before anything is recorded, a new execution (or workflow run) is refused
 * with 503 OVERLOADED when this worker cannot keep up, so that what it accepts it completes.
 * Three signals, each against a bound from the configuration (README "Admission and overload"):
 * - backlog: executions started on this worker and not finished;
 * - event-loop delay: mean over the last sampling window (perf_hooks monitorEventLoopDelay);
 * - agent queue wait: the longest wait for an agent slot seen in the last two windows.
 * Reads, cancels and approvals never pass through here.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { overloaded } from '../../domain/errors.js';

export interface AdmissionBounds {
  readonly maxBacklog: number;
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
  const timer = setInterval(() => {
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
      live.delete(executionId);
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
