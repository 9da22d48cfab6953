/**
 * One heartbeat for every slot lease this worker's owners hold (executions and workflow runs).
 * It runs on a plain interval timer, not as an actor message: under overload a supervisor's
 * mailbox can be thousands of messages deep, and a renewal queued behind them would let leases
 * lapse while their owners are alive, so another worker's recovery (or this one's) would close
 * executions that are still running. Renewals are batched per account and never awaited by the
 * timer, so a slow store delays nothing else.
 */
import type { Logger } from '../../support/log.js';
import type { Concurrency, SlotLeases } from '../../ports/limits.js';

export interface LeaseKeeper extends SlotLeases {
  stop(): void;
}

export interface LeaseKeeperOptions {
  readonly concurrency: Pick<Concurrency, 'renew'>;
  readonly renewEveryMs: number;
  readonly logger: Pick<Logger, 'warn'>;
}

export function startLeaseKeeper(options: LeaseKeeperOptions): LeaseKeeper {
  /** holder id → account id */
  const held = new Map<string, string>();
  let renewing = false;

  async function renewAll(): Promise<void> {
    if (held.size === 0 || renewing) return;
    renewing = true;
    try {
      const byAccount = new Map<string, string[]>();
      for (const [id, accountId] of held) {
        const ids = byAccount.get(accountId);
        if (ids === undefined) byAccount.set(accountId, [id]);
        else ids.push(id);
      }
      await Promise.all(
        [...byAccount].map(([accountId, ids]) =>
          options.concurrency.renew(accountId, ids).then(
            (lost) => {
              // This worker stalled longer than a lease: the slot may have gone to another holder.
              // Recovery on this worker still sees the owner alive (`holds`); others may not.
              if (lost.length > 0) options.logger.warn({ accountId, holderIds: lost }, 'slot leases lapsed while their owners ran');
            },
            (error: unknown) => options.logger.warn({ err: error, accountId }, 'renewing slot leases failed; retrying on the next beat'),
          ),
        ),
      );
    } finally {
      renewing = false;
    }
  }

  const timer = setInterval(() => void renewAll(), options.renewEveryMs);
  timer.unref();
  return {
    hold: (accountId, holderId) => void held.set(holderId, accountId),
    drop: (holderId) => void held.delete(holderId),
    holds: (holderId) => held.has(holderId),
    stop: () => clearInterval(timer),
  };
}
