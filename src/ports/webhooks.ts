/** Port: the webhook outbox and its delivery log. */
import { type NewWebhookDelivery, type WebhookAttemptRecord, type WebhookDelivery } from '../domain/webhooks.js';

/**
 * The webhook outbox (DESIGN §11). Deliveries of one execution go out in `sequence` order: a row
 * is not claimed while an earlier row of its execution is pending or delivering.
 */
export interface WebhookStore {
  /** Adds a delivery after the execution's others; if this execution already has this event, returns that one. */
  enqueue(delivery: NewWebhookDelivery): Promise<WebhookDelivery>;
  /**
   * Claims up to `limit` due deliveries (and ones whose claim lapsed) for one attempt each:
   * marks them delivering until `now + leaseMs` and counts the attempt. Safe across workers:
   * a row is claimed by one of them only.
   */
  claimDue(now: Date, limit: number, leaseMs: number): Promise<WebhookDelivery[]>;
  /** Each returns false when the attempt is no longer the current one (its claim lapsed and was retaken). */
  markDelivered(id: string, record: WebhookAttemptRecord): Promise<boolean>;
  scheduleRetry(id: string, record: WebhookAttemptRecord, nextAttemptAt: Date): Promise<boolean>;
  markFailed(id: string, record: WebhookAttemptRecord): Promise<boolean>;
  /** An execution's deliveries in sequence order; another account's execution has none. */
  listByExecution(accountId: string, executionId: string): Promise<WebhookDelivery[]>;
  /** Earliest next attempt among unfinished deliveries, for the poller's next wake-up; null if none. */
  nextDueAt(): Promise<Date | null>;
}
