/** Webhook deliveries in the outbox and their attempts. */
export type WebhookDeliveryStatus = 'pending' | 'delivering' | 'delivered' | 'failed';
/** A webhook delivery to enqueue: body and fixed headers already built and signed. */
export interface NewWebhookDelivery {
  readonly id: string; // dlv_…
  readonly executionId: string;
  readonly accountId: string;
  readonly url: string;
  readonly event: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Needed per attempt for the Standard Webhooks signature; erased when the delivery finishes. */
  readonly signingSecret: string | null;
  readonly maxAttempts: number;
  /** First attempt due (normally now). */
  readonly nextAttemptAt: Date;
}
export interface WebhookDelivery {
  readonly id: string;
  readonly executionId: string;
  readonly accountId: string;
  readonly url: string;
  readonly event: string;
  /** Position among the execution's deliveries, from 1. */
  readonly sequence: number;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly signingSecret: string | null;
  readonly status: WebhookDeliveryStatus;
  /** Attempts started (a claim counts one). */
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly nextAttemptAt: Date;
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  readonly lastAttemptAt: Date | null;
  readonly createdAt: Date;
  readonly deliveredAt: Date | null;
}
/** How one attempt went, for the delivery log. */
export interface WebhookAttemptRecord {
  /** The attempt number the claim returned (`attempts`); a record for an older attempt is ignored. */
  readonly attempt: number;
  readonly at: Date;
  readonly statusCode: number | null;
  readonly error: string | null;
}
