/** The UsageActor's buffer. */
import type { UsageEntry } from '../domain/usage.js';

/** A FIFO with O(1) amortised removal at the head (Array#shift on 50k entries is a memmove). */
export class EntryQueue {
  private items: UsageEntry[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(entry: UsageEntry): void {
    this.items.push(entry);
  }

  take(count: number): UsageEntry[] {
    const out = this.items.slice(this.head, this.head + count);
    this.head += out.length;
    this.compact();
    return out;
  }

  drop(count: number): number {
    const dropped = Math.min(count, this.length);
    this.head += dropped;
    this.compact();
    return dropped;
  }

  /** Puts a failed batch back in front; rare, so a copy is fine. */
  prepend(entries: readonly UsageEntry[]): void {
    this.items = [...entries, ...this.items.slice(this.head)];
    this.head = 0;
  }

  private compact(): void {
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}
