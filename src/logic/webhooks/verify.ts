/**
 * Verification for webhook receivers. Self-contained (node:crypto only) so it can be imported
 * from the built package (`baton/dist/src/logic/webhooks/verify.js`) or copied into a receiver.
 *
 *   const check = verifyWebhook(rawBody, req.headers, { secret });
 *   if (!check.ok) return res.writeHead(401).end();   // spec §6.1: failed verification → 401
 *
 * It checks `X-Service-Signature` against the raw body bytes (constant-time), then parses the
 * body. With `toleranceSeconds` it also refuses a body whose signed `timestamp` (the time of the
 * event, fixed across retries) is older than that: retries run for about an hour, so a tolerance
 * shorter than ~2 h drops late retries. Duplicates (a retry of something already received) are
 * the receiver's to drop, by `X-Service-Delivery`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type HeaderSource =
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | { get(name: string): string | null };

export interface VerifyOptions {
  readonly secret: string;
  /** Refuse events older (or further in the future) than this; default: no age check. */
  readonly toleranceSeconds?: number;
  /** Current time in ms (tests); default Date.now(). */
  readonly nowMs?: number;
}

export type VerifyFailure = 'missing_signature' | 'bad_signature' | 'malformed_body' | 'stale';

export interface VerifiedWebhook {
  readonly event: string;
  readonly executionId: string;
  readonly timestamp: string;
  readonly data: Readonly<Record<string, unknown>>;
  /** `X-Service-Delivery`: the same on every retry of one delivery. */
  readonly deliveryId: string | null;
}

export type VerifyResult = { readonly ok: true; readonly webhook: VerifiedWebhook } | { readonly ok: false; readonly reason: VerifyFailure };

/** Reads a header from Node's IncomingHttpHeaders (lower-case keys), a plain object, or fetch Headers. */
export function headerValue(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const lower = name.toLowerCase();
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() !== lower) continue;
    const value = record[key];
    return typeof value === 'string' ? value : value?.[0];
  }
  return undefined;
}

/** True when `signature` ("sha256=<hex>") is the HMAC-SHA256 of `rawBody` under `secret`; constant-time. */
export function verifySignature(rawBody: string | Uint8Array, signature: string | undefined, secret: string): boolean {
  if (signature === undefined || !signature.startsWith('sha256=')) return false;
  const given = Buffer.from(signature.slice('sha256='.length), 'hex');
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  // A wrong-length value fails without comparing (timingSafeEqual throws on a length mismatch).
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Verifies `X-Service-Signature` over the raw body, then parses it; see the module comment. */
export function verifyWebhook(rawBody: string | Uint8Array, headers: HeaderSource, options: VerifyOptions): VerifyResult {
  const signature = headerValue(headers, 'X-Service-Signature');
  if (signature === undefined) return { ok: false, reason: 'missing_signature' };
  if (!verifySignature(rawBody, signature, options.secret)) return { ok: false, reason: 'bad_signature' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed_body' };
  }
  if (!isEnvelope(parsed)) return { ok: false, reason: 'malformed_body' };
  if (options.toleranceSeconds !== undefined) {
    const ageMs = (options.nowMs ?? Date.now()) - Date.parse(parsed.timestamp);
    if (!(Math.abs(ageMs) <= options.toleranceSeconds * 1000)) return { ok: false, reason: 'stale' };
  }
  return {
    ok: true,
    webhook: {
      event: parsed.event,
      executionId: parsed.executionId,
      timestamp: parsed.timestamp,
      data: parsed.data,
      deliveryId: headerValue(headers, 'X-Service-Delivery') ?? null,
    },
  };
}

interface Envelope {
  readonly event: string;
  readonly executionId: string;
  readonly timestamp: string;
  readonly data: Readonly<Record<string, unknown>>;
}

function isEnvelope(value: unknown): value is Envelope {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.event === 'string' &&
    typeof v.executionId === 'string' &&
    typeof v.timestamp === 'string' &&
    typeof v.data === 'object' &&
    v.data !== null
  );
}
