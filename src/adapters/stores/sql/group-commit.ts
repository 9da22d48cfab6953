/**
 * Group commit: callers each wait for their own item to be durable, but items that arrive while a
 * write is in flight are written together in the next one. Under load that turns N statements
 * into a few multi-row ones; with no load an item is written at once (no added delay).
 * `write` returns one result per item, in order.
 */
export class GroupCommit<T, R = void> {
  readonly #write: (items: readonly T[]) => Promise<readonly R[] | void>;
  readonly #maxBatch: number;
  #pending: Array<{ item: T; resolve: (result: R) => void; reject: (error: unknown) => void }> = [];
  #writing = false;

  constructor(write: (items: readonly T[]) => Promise<readonly R[] | void>, maxBatch = 500) {
    this.#write = write;
    this.#maxBatch = maxBatch;
  }

  /** Resolves with the item's result once its batch is committed; rejects with the batch's error. */
  add(item: T): Promise<R> {
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
        const results = await this.#write(batch.map((entry) => entry.item));
        batch.forEach((entry, i) => entry.resolve((results === undefined ? undefined : results[i]) as R));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.#writing = false;
  }
}
