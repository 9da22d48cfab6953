/**
 * Key issuance, shared by POST /v1/api-keys and `baton keys create`: permission names known and
 * (for a key issuing a key) a subset of the issuer's; expiry in the future; IP allowlists only on
 * ENTERPRISE accounts and only valid addresses or CIDR ranges. Returns the value once.
 */
import { findInvalidEntry } from '../domain/ip-allowlist.js';
import { generateKeyValue, type KeyHasher } from './auth/key-material.js';
import { isKnownPermission, isSubset } from './auth/permissions.js';
import { forbidden, invalidRequest } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import type { Account } from '../domain/accounts.js';
import type { ApiKeyRecord, KeyActivity } from '../domain/api-keys.js';
import type { ApiKeyStore } from '../ports/api-keys.js';

export interface KeyRequest {
  readonly name: string;
  readonly permissions: readonly string[];
  readonly expiresAt?: string | undefined;
  readonly ipWhitelist?: readonly string[] | undefined;
}

export interface IssuedKey {
  readonly record: ApiKeyRecord;
  /** The secret value: shown to the caller once, never stored. */
  readonly value: string;
}

/** `issuerPermissions` null means the operator, who may grant anything. */
export async function issueKey(
  store: ApiKeyStore,
  hash: KeyHasher,
  account: Account,
  request: KeyRequest,
  issuerPermissions: readonly string[] | null,
  now: number = Date.now(),
): Promise<IssuedKey> {
  checkPermissions(request.permissions, issuerPermissions);
  const expiresAt = checkExpiry(request.expiresAt, now);
  const ipWhitelist = checkAllowlist(request.ipWhitelist, account);
  const value = generateKeyValue();
  const record = await store.create({
    id: newId('key_'),
    accountId: account.id,
    name: request.name,
    keyHash: hash(value),
    permissions: request.permissions,
    expiresAt,
    ipWhitelist,
  });
  return { record, value };
}

function checkPermissions(requested: readonly string[], held: readonly string[] | null): void {
  const unknown = requested.find((p) => !isKnownPermission(p));
  if (unknown !== undefined) throw invalidRequest('permissions', `Unknown permission '${unknown}'`);
  if (held === null) return;
  const missing = requested.find((p) => !isSubset([p], held));
  if (missing !== undefined) {
    throw forbidden(missing, `A key can only grant permissions it holds itself; it lacks '${missing}'`);
  }
}

function checkExpiry(expiresAt: string | undefined, now: number): Date | null {
  if (expiresAt === undefined) return null;
  const date = new Date(expiresAt);
  if (Number.isNaN(date.getTime())) throw invalidRequest('expiresAt', 'expiresAt must be an ISO 8601 date-time');
  if (date.getTime() <= now) throw invalidRequest('expiresAt', 'expiresAt must be in the future');
  return date;
}

function checkAllowlist(entries: readonly string[] | undefined, account: Account): readonly string[] | null {
  if (entries === undefined) return null;
  if (account.tier !== 'ENTERPRISE') {
    throw invalidRequest('ipWhitelist', 'IP allowlists are available on the ENTERPRISE tier only');
  }
  const invalid = findInvalidEntry(entries);
  if (invalid !== null) throw invalidRequest('ipWhitelist', `'${invalid}' is not an IP address or CIDR range`);
  return entries;
}

export function keyView(key: ApiKeyRecord) {
  return {
    id: key.id,
    name: key.name,
    permissions: key.permissions,
    createdAt: key.createdAt.toISOString(),
    ...(key.expiresAt === null ? {} : { expiresAt: key.expiresAt.toISOString() }),
    lastUsedAt: key.lastUsedAt === null ? null : key.lastUsedAt.toISOString(),
    isActive: key.isActive,
    ...(key.ipWhitelist === null ? {} : { ipWhitelist: key.ipWhitelist }),
  };
}

/** The creation response: the record plus the value, without lastUsedAt (spec §4.6). */
export function issuedKeyView(issued: IssuedKey) {
  const { lastUsedAt: _notShownAtCreation, ...view } = keyView(issued.record);
  return { ...view, key: issued.value };
}

export function activityView(activity: KeyActivity) {
  return {
    keyId: activity.keyId,
    lastUsedAt: activity.lastUsedAt === null ? null : activity.lastUsedAt.toISOString(),
    usageStats: activity.usageStats,
    recentRequests: activity.recentRequests.map((r) => ({
      timestamp: r.at.toISOString(),
      endpoint: r.endpoint,
      method: r.method,
      statusCode: r.statusCode,
      ipAddress: r.ipAddress,
    })),
  };
}
