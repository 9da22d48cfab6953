/** Runs subscriber handlers so that their failures are logged and never reach the adapter. */
import type { StoreLogger } from '../log.js';

export type Handler = (message: string) => void | Promise<void>;

/** Resolves when the handler has finished, whether it returned, threw or rejected. */
export function runHandler(handler: Handler, message: string, channel: string, log: StoreLogger): Promise<void> {
  try {
    return Promise.resolve(handler(message)).catch((err: unknown) =>
      log.error({ err, channel }, 'subscriber handler failed'),
    );
  } catch (err) {
    log.error({ err, channel }, 'subscriber handler failed');
    return Promise.resolve();
  }
}

/** Runs every handler of a channel at once; resolves when all have finished. */
export function runHandlers(
  handlers: Iterable<{ readonly handler: Handler }>,
  message: string,
  channel: string,
  log: StoreLogger,
): Promise<unknown> {
  const runs: Promise<void>[] = [];
  for (const entry of handlers) runs.push(runHandler(entry.handler, message, channel, log));
  return Promise.all(runs);
}
