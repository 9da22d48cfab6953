/**
 * A per-call deadline: one AbortSignal that fires when the timeout passes or the caller's
 * signal aborts, and remembers which of the two it was. Hand-rolled rather than
 * AbortSignal.any([AbortSignal.timeout(ms), signal]) because (a) the timer is cleared when the
 * call ends instead of lingering for the full timeout at thousands of calls a second, (b) the
 * listener on a long-lived caller signal is removed instead of accumulating, and (c) the cause
 * is known without inspecting abort reasons.
 */

export type DeadlineCause = 'timeout' | 'aborted';

/** Longest timer Node accepts without overflowing to 1 ms. */
const MAX_TIMER_MS = 2_147_483_647;

export class CallDeadline {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  private readonly controller = new AbortController();
  private readonly parent: AbortSignal | undefined;
  private readonly timer: NodeJS.Timeout;
  private firedCause: DeadlineCause | null = null;

  /** Starts the clock; `cancel()` must be called when the call ends, however it ends. */
  constructor(timeoutMs: number, parent?: AbortSignal) {
    this.timeoutMs = Math.min(Math.max(1, Math.ceil(timeoutMs)), MAX_TIMER_MS);
    this.signal = this.controller.signal;
    this.parent = parent;
    this.timer = setTimeout(fireTimeout, this.timeoutMs, this);
    if (parent !== undefined) {
      if (parent.aborted) this.fire('aborted');
      else parent.addEventListener('abort', this, { once: true });
    }
  }

  /** Which limit ended the call, or null while neither has. */
  get cause(): DeadlineCause | null {
    return this.firedCause;
  }

  /** EventListener object for the caller's signal (an object, not a closure per call). */
  handleEvent(): void {
    this.fire('aborted');
  }

  fire(cause: DeadlineCause): void {
    if (this.firedCause !== null) return;
    this.firedCause = cause;
    this.cancel();
    const reason = cause === 'timeout'
      ? new DOMException(`Timed out after ${this.timeoutMs} ms`, 'TimeoutError')
      : new DOMException('Aborted by the caller', 'AbortError');
    this.controller.abort(reason);
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.parent?.removeEventListener('abort', this);
  }
}

function fireTimeout(deadline: CallDeadline): void {
  deadline.fire('timeout');
}
