/** Port: usage records and per-key activity. */
import { type KeyActivity } from '../domain/api-keys.js';
import { type UsageEntry } from '../domain/usage.js';

export interface UsageStore {
  /** Writes many entries in one round trip: hourly counters, lastUsedAt, the recent-requests log. */
  recordBatch(entries: readonly UsageEntry[]): Promise<void>;
  /** Activity of one key as of `now`; `recentLimit` most recent requests, newest first. */
  activity(keyId: string, now: Date, recentLimit: number): Promise<KeyActivity>;
  /** Deletes request-log rows beyond what `activity` can show; returns rows removed. */
  prune(now: Date): Promise<number>;
}
