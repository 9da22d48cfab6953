/**
 * Per-worker cache of authenticated keys, by key hash. Revocation (deactivate, delete) evicts on
 * every worker through a broadcast that each worker acknowledges before the revoking request
 * answers, so a revoked key is never served from any cache afterwards. A generation counter
 * stops a lookup that started before an eviction from re-filling the cache with the stale row.
 */
import { LRUCache } from 'lru-cache';
import type { KeyWithAccount } from '../../domain/api-keys.js';

export interface KeyCacheOptions {
  readonly max: number;
  /** Upper bound on staleness for changes that are not revocations (e.g. account tier). */
  readonly ttlMs: number;
}

export class KeyCache {
  #entries: LRUCache<string, KeyWithAccount>;
  #generation = 0;

  constructor(options: KeyCacheOptions) {
    this.#entries = new LRUCache({ max: options.max, ttl: options.ttlMs });
  }

  get(keyHash: string): KeyWithAccount | undefined {
    return this.#entries.get(keyHash);
  }

  /** The generation to pass to `fill` after loading from the store. */
  get generation(): number {
    return this.#generation;
  }

  /** Stores a loaded row unless an eviction happened since `generation` was read. */
  fill(keyHash: string, value: KeyWithAccount, generation: number): void {
    if (generation === this.#generation) this.#entries.set(keyHash, value);
  }

  evict(keyHash: string): void {
    this.#generation++;
    this.#entries.delete(keyHash);
  }

  clear(): void {
    this.#generation++;
    this.#entries.clear();
  }
}
