/**
 * The primary process: forks BATON_WORKERS workers that each listen on the same port
 * (uWS sets SO_REUSEPORT), restarts a worker that dies with exponential backoff, and on
 * SIGTERM/SIGINT asks every worker to drain, killing stragglers after a deadline.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../support/config.js';
import type { Logger } from '../support/log.js';
import { isWorkerMessage, type PrimaryMessage } from './worker-messages.js';

const BACKOFF_START_MS = 250;
const BACKOFF_MAX_MS = 30_000;
/** A worker that ran this long before dying is considered healthy: backoff starts over. */
const STABLE_AFTER_MS = 60_000;
const SHUTDOWN_DEADLINE_MS = 30_000;

interface Slot {
  readonly index: number;
  worker: Worker | null;
  startedAt: number;
  backoffMs: number;
}

/** `onReady` runs once, when every worker listens (the first-run notice prints then). */
export function runPrimary(config: Config, logger: Logger, onReady?: (port: number) => void): void {
  const slots: Slot[] = Array.from({ length: config.workers }, (_, index) => ({ index, worker: null, startedAt: 0, backoffMs: BACKOFF_START_MS }));
  let stopping = false;
  let ready = 0;

  function fork(slot: Slot): void {
    const worker = cluster.fork({ BATON_WORKER_INDEX: String(slot.index) });
    slot.worker = worker;
    slot.startedAt = Date.now();
    worker.on('message', (message: unknown) => {
      if (!isWorkerMessage(message)) return;
      if (message.type === 'worker.ready') {
        ready++;
        if (ready === slots.length) {
          // Tests and operators wait for this line.
          logger.info({ port: message.port, workers: slots.length }, `baton listening on http://${config.host}:${message.port}`);
          if (onReady !== undefined) {
            onReady(message.port);
            onReady = undefined;
          }
        }
      }
    });
    worker.on('exit', (code, signal) => {
      slot.worker = null;
      if (stopping) return;
      const ranMs = Date.now() - slot.startedAt;
      if (ranMs > STABLE_AFTER_MS) slot.backoffMs = BACKOFF_START_MS;
      logger.error({ worker: slot.index, code, signal, restartInMs: slot.backoffMs }, 'worker exited; restarting');
      setTimeout(() => {
        if (!stopping) fork(slot);
      }, slot.backoffMs).unref();
      slot.backoffMs = Math.min(slot.backoffMs * 2, BACKOFF_MAX_MS);
    });
  }

  function shutdown(signal: string): void {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: draining workers');
    const message: PrimaryMessage = { type: 'primary.shutdown', deadlineMs: SHUTDOWN_DEADLINE_MS };
    for (const slot of slots) slot.worker?.send(message);
    const killer = setTimeout(() => {
      for (const slot of slots) slot.worker?.process.kill('SIGKILL');
    }, SHUTDOWN_DEADLINE_MS + 2_000);
    killer.unref();
    const poll = setInterval(() => {
      if (slots.every((s) => s.worker === null)) {
        clearInterval(poll);
        clearTimeout(killer);
        logger.info('all workers stopped');
        process.exit(0);
      }
    }, 50);
  }

  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  for (const slot of slots) fork(slot);
}
