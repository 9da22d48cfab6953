/**
 * Messages of the WebhookActor (the outbox sender, DESIGN §11), and the facade other code uses.
 * After enqueueing a delivery, the ExecutionActor calls `kick()` so it goes out at once rather
 * than at the next poll.
 */
import type { WebhookDelivery } from '../domain/webhooks.js';
import { ask } from './kit/ask.js';
import { dispatch, type Ref } from './kit/nact.js';
import type { ReplyRef } from './kit/protocol.js';
import type { TimerTick } from './kit/timers.js';

/** How one attempt ended, as recorded. `unrecorded`: the store write failed (the lease will lapse and the row be retried). */
export type WebhookAttemptOutcome = 'delivered' | 'retry' | 'failed' | 'unrecorded';

export interface WebhookSenderStatus {
  readonly type: 'webhook.status';
  readonly inFlight: number;
  readonly claiming: boolean;
  readonly delivered: number;
  readonly retried: number;
  readonly failed: number;
}

export type WebhookCommand =
  | { readonly type: 'webhook.kick' }
  | { readonly type: 'webhook.getStatus'; readonly replyTo: ReplyRef<WebhookSenderStatus> };

export type WebhookInternal =
  | { readonly type: 'webhook.pollDue'; readonly timer: TimerTick }
  | { readonly type: 'webhook.claimed'; readonly deliveries: readonly WebhookDelivery[]; readonly limit: number }
  | { readonly type: 'webhook.claimFailed'; readonly error: unknown }
  | { readonly type: 'webhook.attemptFinished'; readonly deliveryId: string; readonly outcome: WebhookAttemptOutcome };

export type WebhookMessage = WebhookCommand | WebhookInternal;

export interface WebhookSender {
  /** Look for due deliveries now. Never blocks, never throws. */
  kick(): void;
  status(timeoutMs: number): Promise<WebhookSenderStatus>;
}

export function createWebhookSender(ref: Ref<WebhookCommand>): WebhookSender {
  return {
    kick: () => dispatch(ref, { type: 'webhook.kick' }),
    status: (timeoutMs) => ask(ref, (replyTo) => ({ type: 'webhook.getStatus', replyTo }), timeoutMs),
  };
}
