/**
 * The embedded database on its own thread: PGlite (Postgres compiled to WebAssembly) runs every
 * statement synchronously on the thread that owns it, and under load it was about 45% of the
 * worker's CPU, all of it on the event loop that also serves HTTP and runs the actors. Here a
 * worker thread owns PGlite and its socket server; the worker's postgres.js pool talks to it over
 * the same local socket as before, so the SQL code path is unchanged, and on a machine with a
 * spare core the statements run beside the event loop instead of inside it.
 *
 * Messages: the parent sends `start` (workerData) and later `stop`; the thread answers `ready`
 * with the address, or `failed` with the error text, and `stopped`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startEngineHere, type EmbeddedEngine } from './pglite-engine.js';

export interface PgliteThreadData {
  /** null: in memory. */
  readonly dataDir: string | null;
  readonly schema: string;
  /** Unix socket path, or null for loopback TCP on a free port. */
  readonly socketPath: string | null;
}

export type PgliteThreadReply =
  | { readonly type: 'ready'; readonly path: string | null; readonly port: number | null }
  | { readonly type: 'failed'; readonly error: string }
  | { readonly type: 'stopped' };

async function main(data: PgliteThreadData): Promise<void> {
  const port = parentPort!;
  let engine: EmbeddedEngine;
  try {
    engine = await startEngineHere(data);
  } catch (error) {
    port.postMessage({ type: 'failed', error: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies PgliteThreadReply);
    return;
  }
  port.postMessage({ type: 'ready', path: engine.path, port: engine.port } satisfies PgliteThreadReply);
  port.on('message', (message: unknown) => {
    if ((message as { type?: unknown } | null)?.type !== 'stop') return;
    void (async () => {
      await engine.stop().catch(() => undefined);
      port.postMessage({ type: 'stopped' } satisfies PgliteThreadReply);
    })();
  });
}

if (parentPort !== null && (workerData as { pgliteThread?: PgliteThreadData } | null)?.pgliteThread !== undefined) {
  void main((workerData as { pgliteThread: PgliteThreadData }).pgliteThread);
}
