/**
 * What travels on a Baton channel: the subscriber's message, preceded by one marker character
 * and, for broadcasts that want acknowledgements, a fixed-length nonce. Handlers only ever see
 * the message itself.
 */

const PLAIN = '0';
const ACKED = '1';
export const NONCE_LENGTH = 32;

export interface Envelope {
  /** Set when the publisher waits for each receiving worker to acknowledge. */
  readonly nonce: string | null;
  readonly message: string;
}

export function encodeEnvelope(nonce: string | null, message: string): string {
  return nonce === null ? PLAIN + message : ACKED + nonce + message;
}

/** Decodes; anything not built by `encodeEnvelope` (another publisher) is passed through whole. */
export function decodeEnvelope(raw: string): Envelope {
  if (raw.startsWith(PLAIN)) return { nonce: null, message: raw.slice(1) };
  if (raw.startsWith(ACKED) && raw.length > NONCE_LENGTH) {
    return { nonce: raw.slice(1, 1 + NONCE_LENGTH), message: raw.slice(1 + NONCE_LENGTH) };
  }
  return { nonce: null, message: raw };
}
