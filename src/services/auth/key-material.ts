/**
 * API key values and their hashes. A value is `mk_` + 32 lowercase hex (16 random bytes); only
 * its hash is stored: HMAC-SHA256 under BATON_KEY_SECRET when set (a leaked table is then useless
 * without the secret), plain SHA-256 otherwise. Keys carry 128 random bits, so no slow KDF is needed.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';

const KEY_FORMAT = /^mk_[0-9a-f]{32}$/;

export function generateKeyValue(): string {
  return `mk_${randomBytes(16).toString('hex')}`;
}

export function isWellFormedKey(value: string): boolean {
  return KEY_FORMAT.test(value);
}

export type KeyHasher = (value: string) => string;

export function createKeyHasher(secret: string | null): KeyHasher {
  if (secret === null) return (value) => createHash('sha256').update(value).digest('hex');
  return (value) => createHmac('sha256', secret).update(value).digest('hex');
}
