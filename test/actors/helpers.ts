/** Shared by the actor tests: waiting for the mailbox to drain and capturing logs. */
import type { KitLogger } from '../../actors/kit/logger.js';

/** Lets nact (one setImmediate per message) and settled promises run for `turns` macrotask turns. */
export async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Resolves once `check` holds; rejects after `timeoutMs` of real time. */
export async function eventually(check: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

export interface LogLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly context: object;
  readonly message: string;
}

export function recordingLogger(): { readonly logger: KitLogger; readonly lines: LogLine[] } {
  const lines: LogLine[] = [];
  return {
    lines,
    logger: {
      info: (context, message) => lines.push({ level: 'info', context, message }),
      warn: (context, message) => lines.push({ level: 'warn', context, message }),
      error: (context, message) => lines.push({ level: 'error', context, message }),
    },
  };
}

/** A promise plus its resolver, for holding an actor inside an async handler. */
export function gate(): { readonly promise: Promise<void>; readonly open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}
