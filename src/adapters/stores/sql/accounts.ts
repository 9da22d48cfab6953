/** AccountStore on SQL. */
import type { Account, NewAccount } from '../../../domain/accounts.js';
import type { AccountStore } from '../../../ports/accounts.js';
import type { Sql } from './connect.js';
import { ACCOUNT_COLUMNS, toAccount, type AccountRow } from './rows.js';

export function sqlAccountStore(sql: Sql): AccountStore {
  return {
    async create(account: NewAccount): Promise<Account> {
      const limits = account.limits === null ? null : sql.json({ ...account.limits });
      const [row] = await sql<AccountRow[]>`
        insert into accounts (id, name, tier, limits, fee_basis_points)
        values (${account.id}, ${account.name}, ${account.tier}, ${limits}, ${account.feeBasisPoints})
        returning ${sql(ACCOUNT_COLUMNS)}`;
      if (row === undefined) throw new Error('insert into accounts returned no row');
      return toAccount(row);
    },

    async get(id: string): Promise<Account | null> {
      const [row] = await sql<AccountRow[]>`select ${sql(ACCOUNT_COLUMNS)} from accounts where id = ${id}`;
      return row === undefined ? null : toAccount(row);
    },
  };
}
