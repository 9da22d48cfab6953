/**
 * Webhook signing (spec §6.1, DESIGN §11).
 *
 * Body: `{ event, executionId, timestamp, signature, data }` in that order. Its `signature` is
 * "sha256=" + hex HMAC-SHA256 of the compact JSON of the same object without `signature`
 * (`{"event":…,"executionId":…,"timestamp":…,"data":…}`).
 *
 * Headers:
 * - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the exact raw body. This is the one
 *   receivers should check (against the bytes they received, before parsing).
 * - `X-Service-Event`, `X-Service-Delivery` (the delivery id; the same on every retry, for
 *   de-duplication), `X-Service-Timestamp` (Unix seconds of this attempt).
 * - Standard Webhooks (standardwebhooks.com): `webhook-id` (= the delivery id),
 *   `webhook-timestamp` (Unix seconds of this attempt), `webhook-signature`
 *   (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`).
 *
 * Keys: the service HMACs use the secret's UTF-8 bytes. Standard Webhooks secrets are
 * `whsec_<base64 key>`: a secret in that form is base64-decoded for the Standard Webhooks
 * signature (so its libraries work with the secret as given); any other secret's UTF-8 bytes are
 * the key, and a Standard Webhooks library is then given `whsec_` + base64(secret).
 *
 * The body and X-Service-Signature are fixed when the delivery is enqueued, so retries resend the
 * identical bytes; the timestamp headers and `webhook-signature` are made per attempt, because
 * Standard Webhooks verifiers refuse timestamps older than about five minutes and retries run
 * for an hour.
 */
import { createHmac } from 'node:crypto';
import type { WebhookData, WebhookEvent } from './events.js';

export const SIGNATURE_PREFIX = 'sha256=';
const STANDARD_SECRET_PREFIX = 'whsec_';

export const WebhookHeader = {
  SIGNATURE: 'X-Service-Signature',
  EVENT: 'X-Service-Event',
  DELIVERY: 'X-Service-Delivery',
  TIMESTAMP: 'X-Service-Timestamp',
  STANDARD_ID: 'webhook-id',
  STANDARD_TIMESTAMP: 'webhook-timestamp',
  STANDARD_SIGNATURE: 'webhook-signature',
} as const;

export interface WebhookPayload {
  readonly event: WebhookEvent;
  readonly executionId: string;
  /** ISO 8601, when the event happened (not when it was sent). */
  readonly timestamp: string;
  readonly signature?: string;
  readonly data: WebhookData;
}

/** "sha256=" + hex HMAC-SHA256 of `text` under the secret's UTF-8 bytes. */
export function serviceSignature(secret: string, text: string | Buffer): string {
  return SIGNATURE_PREFIX + createHmac('sha256', secret).update(text).digest('hex');
}

/** The exact body bytes (as a string) of one event; unsigned (no `signature` field) without a secret. */
export function webhookBody(
  event: WebhookEvent,
  executionId: string,
  at: Date,
  data: WebhookData,
  secret: string | null,
): string {
  const timestamp = at.toISOString();
  if (secret === null) return JSON.stringify({ event, executionId, timestamp, data });
  const signature = serviceSignature(secret, JSON.stringify({ event, executionId, timestamp, data }));
  return JSON.stringify({ event, executionId, timestamp, signature, data });
}

/** Headers fixed for every attempt of a delivery (stored with it). */
export function fixedHeaders(deliveryId: string, event: WebhookEvent, body: string, secret: string | null): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    [WebhookHeader.EVENT]: event,
    [WebhookHeader.DELIVERY]: deliveryId,
  };
  if (secret !== null) headers[WebhookHeader.SIGNATURE] = serviceSignature(secret, body);
  return headers;
}

/** The HMAC key Standard Webhooks verifiers derive from `secret` (see the module comment). */
export function standardWebhooksKey(secret: string): Buffer {
  if (secret.startsWith(STANDARD_SECRET_PREFIX)) {
    const encoded = secret.slice(STANDARD_SECRET_PREFIX.length);
    if (/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) && encoded.length % 4 === 0) return Buffer.from(encoded, 'base64');
  }
  return Buffer.from(secret, 'utf8');
}

/** `v1,<base64>` over "<id>.<timestamp>.<body>". */
export function standardWebhooksSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', standardWebhooksKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** Headers made at send time: the attempt's timestamp and the Standard Webhooks set. */
export function attemptHeaders(deliveryId: string, body: string, secret: string | null, nowMs: number): Record<string, string> {
  const seconds = Math.floor(nowMs / 1000);
  const headers: Record<string, string> = {
    [WebhookHeader.TIMESTAMP]: String(seconds),
    [WebhookHeader.STANDARD_ID]: deliveryId,
    [WebhookHeader.STANDARD_TIMESTAMP]: String(seconds),
  };
  if (secret !== null) headers[WebhookHeader.STANDARD_SIGNATURE] = standardWebhooksSignature(secret, deliveryId, seconds, body);
  return headers;
}
