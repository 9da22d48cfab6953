/** IPC between the primary and its workers. */
export type WorkerMessage = { readonly type: 'worker.ready'; readonly port: number };
export type PrimaryMessage = { readonly type: 'primary.shutdown'; readonly deadlineMs: number };

export function isWorkerMessage(value: unknown): value is WorkerMessage {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'worker.ready';
}

export function isPrimaryMessage(value: unknown): value is PrimaryMessage {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'primary.shutdown';
}
