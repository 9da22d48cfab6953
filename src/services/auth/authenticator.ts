/**
 * Turns request credentials into a Principal and enforces a route's Access declaration:
 * 401 UNAUTHORIZED (missing, malformed, unknown, deactivated), 401 KEY_EXPIRED, 403 FORBIDDEN
 * (permission, operator-only route, address outside the key's ipWhitelist).
 */
import { timingSafeEqual } from 'node:crypto';
import { forbidden, ipNotAllowed, keyExpired, unauthorized } from '../../domain/errors.js';
import type { Access } from './access.js';
import type { ApiKeyStore } from '../../ports/api-keys.js';
import type { KeyWithAccount } from '../../domain/api-keys.js';
import { compileAllowlist, type IpAllowlist } from '../../domain/ip-allowlist.js';
import type { KeyCache } from './key-cache.js';
import { isWellFormedKey, type KeyHasher } from './key-material.js';
import { grants } from './permissions.js';
import { ANONYMOUS, OPERATOR, type Principal } from './principal.js';

export interface Credentials {
  /** Value of `Authorization` (raw). */
  readonly authorization: string;
  /** Value of `x-api-key` (raw). */
  readonly apiKey: string;
}

export interface AuthenticatorDeps {
  readonly keys: ApiKeyStore;
  readonly cache: KeyCache;
  /** False while revocation broadcasts cannot reach this worker: the cache is bypassed. */
  readonly cacheTrusted?: () => boolean;
  readonly hash: KeyHasher;
  readonly adminToken: string | null;
  readonly now?: () => number;
}

/** Extracts the presented secret: Bearer first, then x-api-key; empty when none. */
export function presentedSecret(credentials: Credentials): string {
  const auth = credentials.authorization;
  if (auth !== '') {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(auth);
    return match === null ? '\u0000malformed' : match[1]!;
  }
  return credentials.apiKey.trim();
}

export class Authenticator {
  readonly #deps: AuthenticatorDeps;
  readonly #adminToken: Buffer | null;
  readonly #allowlists = new WeakMap<readonly string[], IpAllowlist>();
  readonly #now: () => number;

  constructor(deps: AuthenticatorDeps) {
    this.#deps = deps;
    this.#adminToken = deps.adminToken === null ? null : Buffer.from(deps.adminToken);
    this.#now = deps.now ?? Date.now;
  }

  /** Resolves the caller for a route, or throws the error the client should see. */
  async authorize(access: Access, credentials: Credentials, clientAddress: string): Promise<Principal> {
    const principal = await this.authenticate(access, credentials, clientAddress);
    this.checkPermission(access, principal);
    return principal;
  }

  /**
   * Who is calling (401s, the key's expiry and IP allowlist), without the route's permission:
   * the pipeline counts the request against the account's rate limit between the two steps,
   * so a refused permission still counts while a request from outside the allowlist does not.
   */
  async authenticate(access: Access, credentials: Credentials, clientAddress: string): Promise<Principal> {
    if (access.kind === 'public') return ANONYMOUS;
    const secret = presentedSecret(credentials);
    if (secret === '' && access.kind === 'optional-key') return ANONYMOUS;
    if (secret === '') {
      throw unauthorized('Send an API key as `Authorization: Bearer <key>` or `x-api-key: <key>`');
    }
    if (this.#isAdminToken(secret)) {
      if (access.kind === 'operator' || (access.kind === 'permission' && access.operator === true)) return OPERATOR;
      throw unauthorized('The operator token is not an API key; this endpoint needs an API key');
    }
    if (!isWellFormedKey(secret)) {
      throw unauthorized('Malformed API key: expected mk_ followed by 32 lowercase hex characters');
    }
    const found = await this.#lookup(secret);
    if (found === null) throw unauthorized('Unknown API key');
    const { key } = found;
    if (!key.isActive) throw unauthorized('This API key has been deactivated');
    if (key.expiresAt !== null && key.expiresAt.getTime() <= this.#now()) {
      throw keyExpired(key.expiresAt.toISOString());
    }
    if (key.ipWhitelist !== null && !this.#allowlist(key.ipWhitelist).allows(clientAddress)) {
      throw ipNotAllowed(clientAddress);
    }
    return { kind: 'key', key: found.key, account: found.account };
  }

  /** The route's permission (403), for a principal `authenticate` returned. */
  checkPermission(access: Access, principal: Principal): void {
    if (principal.kind !== 'key') return;
    if (access.kind === 'operator') throw forbidden('operator', 'This endpoint needs the operator token');
    if (access.kind === 'permission' && !grants(principal.key.permissions, access.permission)) {
      throw forbidden(access.permission);
    }
  }

  async #lookup(secret: string): Promise<KeyWithAccount | null> {
    const keyHash = this.#deps.hash(secret);
    if (this.#deps.cacheTrusted !== undefined && !this.#deps.cacheTrusted()) return this.#deps.keys.findByHash(keyHash);
    const cached = this.#deps.cache.get(keyHash);
    if (cached !== undefined) return cached;
    const generation = this.#deps.cache.generation;
    const found = await this.#deps.keys.findByHash(keyHash);
    if (found !== null) this.#deps.cache.fill(keyHash, found, generation);
    return found;
  }

  #isAdminToken(secret: string): boolean {
    if (this.#adminToken === null) return false;
    const presented = Buffer.from(secret);
    return presented.length === this.#adminToken.length && timingSafeEqual(presented, this.#adminToken);
  }

  #allowlist(entries: readonly string[]): IpAllowlist {
    let compiled = this.#allowlists.get(entries);
    if (compiled === undefined) {
      compiled = compileAllowlist(entries);
      this.#allowlists.set(entries, compiled);
    }
    return compiled;
  }
}
