/**
 * Who a route acts for, read from the principal the pipeline authenticated against the route's
 * access declaration.
 */
import { asKey, type Principal } from '../services/auth/principal.js';

/** The caller's account on routes whose access admits only keys. */
export function accountIdOf(principal: Principal): string {
  return asKey(principal).account.id;
}

/** The scope a caller reads and writes in: its account, or null (global) for the operator token. */
export function scopeOf(principal: Principal): string | null {
  return principal.kind === 'key' ? principal.account.id : null;
}
