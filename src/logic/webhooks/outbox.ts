/**
 * What the ExecutionActor calls to announce an event: it builds the signed body and fixed headers
 * now (so every retry resends identical bytes) and enqueues them in the outbox; the WebhookActor
 * sends them. Also the delivery-log view for `GET /v1/executions/{id}/webhooks`.
 */
import { newId } from '../../domain/ids.js';
import type { NewWebhookDelivery, WebhookDelivery, WebhookDeliveryStatus } from '../../domain/webhooks.js';
import type { WebhookStore } from '../../ports/webhooks.js';
import { wantsEvent, type WebhookConfig, type WebhookData, type WebhookEvent } from './events.js';
import { DEFAULT_RETRY_POLICY } from './retry.js';
import { fixedHeaders, webhookBody } from './sign.js';

export interface WebhookAnnouncement {
  readonly accountId: string;
  readonly executionId: string;
  readonly config: WebhookConfig;
  readonly event: WebhookEvent;
  readonly data: WebhookData;
  /** When the event happened: the body's `timestamp`. */
  readonly at: Date;
  readonly maxAttempts?: number;
  /** The announcing run's trace context; stored with the fixed headers so every attempt joins its trace. */
  readonly traceparent?: string;
}

/** The outbox row for one event (body signed, headers fixed, first attempt due at `at`). */
export function buildDelivery(announcement: WebhookAnnouncement, id: string = newId('dlv_')): NewWebhookDelivery {
  const { config, event, executionId } = announcement;
  const secret = config.secret === undefined || config.secret === '' ? null : config.secret;
  const body = webhookBody(event, executionId, announcement.at, announcement.data, secret);
  return {
    id,
    executionId,
    accountId: announcement.accountId,
    url: config.url,
    event,
    body,
    headers: announcement.traceparent === undefined ? fixedHeaders(id, event, body, secret) : { ...fixedHeaders(id, event, body, secret), traceparent: announcement.traceparent },
    signingSecret: secret,
    maxAttempts: announcement.maxAttempts ?? DEFAULT_RETRY_POLICY.maxAttempts,
    nextAttemptAt: announcement.at,
  };
}

/**
 * Enqueues the event if the webhook asked for it; returns the delivery (an existing one when the
 * event was already enqueued for this execution), or null when the webhook does not want it.
 * Callers then kick the WebhookActor so delivery does not wait for its next poll.
 */
export async function enqueueWebhook(store: Pick<WebhookStore, 'enqueue'>, announcement: WebhookAnnouncement): Promise<WebhookDelivery | null> {
  if (!wantsEvent(announcement.config, announcement.event)) return null;
  return store.enqueue(buildDelivery(announcement));
}

/** One delivery as the delivery-log endpoint shows it (no body, no headers, no secret). */
export interface WebhookDeliveryView {
  readonly id: string;
  readonly event: string;
  readonly url: string;
  readonly status: WebhookDeliveryStatus;
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  readonly lastAttemptAt: string | null;
  /** When the next attempt is due; null once delivered or failed. */
  readonly nextAttemptAt: string | null;
  readonly createdAt: string;
  readonly deliveredAt: string | null;
}

export function toDeliveryView(d: WebhookDelivery): WebhookDeliveryView {
  const unfinished = d.status === 'pending' || d.status === 'delivering';
  return {
    id: d.id,
    event: d.event,
    url: d.url,
    status: d.status,
    attempts: d.attempts,
    maxAttempts: d.maxAttempts,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: unfinished ? d.nextAttemptAt.toISOString() : null,
    createdAt: d.createdAt.toISOString(),
    deliveredAt: d.deliveredAt?.toISOString() ?? null,
  };
}
