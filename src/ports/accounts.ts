/** Port: durable accounts. */
import { type Account, type NewAccount } from '../domain/accounts.js';

export interface AccountStore {
  create(account: NewAccount): Promise<Account>;
  get(id: string): Promise<Account | null>;
}
