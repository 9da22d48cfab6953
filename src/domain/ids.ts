/** Resource ids: a type prefix and 16 random bytes in base32-ish lowercase hex, sortable by nothing. */
import { randomBytes } from 'node:crypto';

export const IdPrefix = {
  account: 'acct_',
  apiKey: 'key_',
  execution: 'exec_',
  approval: 'apr_',
  request: 'req_',
  delivery: 'dlv_',
} as const;
export type IdPrefix = (typeof IdPrefix)[keyof typeof IdPrefix];

export function newId(prefix: IdPrefix): string {
  return prefix + randomBytes(12).toString('hex');
}
