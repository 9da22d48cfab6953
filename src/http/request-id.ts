/**
 * Request ids: `req_` + a random per-process prefix + a counter. Unique across workers and
 * restarts (the prefix is 64 random bits), and far cheaper than crypto randomness per request;
 * request ids identify log lines, they are not secrets.
 */
import { randomBytes } from 'node:crypto';

const prefix = `req_${randomBytes(8).toString('hex')}`;
let counter = 0;

export function nextRequestId(): string {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `${prefix}${counter.toString(36).padStart(6, '0')}`;
}
