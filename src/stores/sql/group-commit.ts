/**
 * Group commit: callers each wait for their own row to be durable, but rows that arrive while a
 * write is in flight are written together in the next one. Under load that turns N inserts into
 * a few multi-row statements; with no load a row is written at once (no added delay).
 */
export class GroupCommit<T> {
  readonly #write: (items: readonly T[]) => Promise<void>;
  readonly #maxBatch: number;
  #pending: Array<{ item: T; resolve: () => void; reject: (error: unknown) => void }> = [];
  #writing = false;

  constructor(write: (items: readonly T[]) => Promise<void>, maxBatch = 500) {
    this.#write = write;
    this.#maxBatch = maxBatch;
  }

  /** Resolves once the item's batch is committed; rejects with the batch's error. */
  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
      if (!this.#writing) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    while (this.#pending.length > 0) {
      const batch = this.#pending.splice(0, this.#maxBatch);
      try {
        await this.#write(batch.map((entry) => entry.item));
        for (const entry of batch) entry.resolve();
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.#writing = false;
  }
}
