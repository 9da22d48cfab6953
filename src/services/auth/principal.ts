/** Who is calling: nobody (public routes), the operator token, or an API key of an account. */
import type { Account } from '../../domain/accounts.js';
import type { ApiKeyRecord } from '../../domain/api-keys.js';

export type Principal =
  | { readonly kind: 'anonymous' }
  | { readonly kind: 'operator' }
  | { readonly kind: 'key'; readonly key: ApiKeyRecord; readonly account: Account };

export const ANONYMOUS: Principal = { kind: 'anonymous' };
export const OPERATOR: Principal = { kind: 'operator' };

export type KeyPrincipal = Extract<Principal, { kind: 'key' }>;

/** Narrows a principal on routes whose Access only admits keys (the pipeline guarantees it). */
export function asKey(principal: Principal): KeyPrincipal {
  if (principal.kind !== 'key') throw new TypeError(`route admitted a ${principal.kind} principal where a key is required`);
  return principal;
}
