/** The operator's CLI commands that act on the database directly. */
import { accountView, createAccount } from '../services/accounts.js';
import { issuedKeyView, issueKey } from '../services/api-keys.js';
import { createKeyHasher } from '../services/auth/key-material.js';
import type { Config } from '../support/config.js';
import { ApiError, accountNotFound } from '../domain/errors.js';
import { CreateAccountBody } from '../schemas/accounts.js';
import { CreateApiKeyBody } from '../schemas/api-keys.js';
import { openDurableStores } from '../adapters/stores/sql/index.js';
import type { DurableStores } from '../ports/durable.js';
import { compile } from '../schemas/validation.js';

const accountBody = compile(CreateAccountBody);
const keyBody = compile(CreateApiKeyBody);

async function withStores<T>(config: Config, work: (stores: DurableStores) => Promise<T>): Promise<T> {
  const stores = await openDurableStores({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    databaseSchema: config.databaseSchema,
  });
  try {
    return await work(stores);
  } catch (error) {
    if (error instanceof ApiError) {
      const field = typeof error.extra.field === 'string' && error.extra.field !== '' ? ` (${error.extra.field})` : '';
      throw new Error(`${error.message}${field}`);
    }
    throw error;
  } finally {
    await stores.close();
  }
}

export async function migrateCommand(config: Config): Promise<void> {
  // Opening the stores applies pending migrations.
  await withStores(config, async () => undefined);
  console.log('migrations applied');
}

/** Drops undefined fields, as a JSON body would not have them. */
function withoutUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}

function parseJsonOption(name: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`--${name} must be JSON`);
  }
}

export async function createAccountCommand(
  config: Config,
  options: { name: string; tier: string; limits?: string; feePercent?: number },
): Promise<void> {
  const input = accountBody.parse(
    withoutUndefined({
      name: options.name,
      tier: options.tier,
      limits: options.limits === undefined ? undefined : parseJsonOption('limits', options.limits),
      feePercent: options.feePercent,
    }),
  );
  const account = await withStores(config, (stores) => createAccount(stores.accounts, input));
  console.log(JSON.stringify(accountView(account), null, 2));
}

export async function createKeyCommand(
  config: Config,
  options: { account: string; name: string; permissions: string; expiresAt?: string; ipWhitelist?: string },
): Promise<void> {
  const list = (text: string) => text.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  const input = keyBody.parse(
    withoutUndefined({
      name: options.name,
      permissions: list(options.permissions),
      expiresAt: options.expiresAt,
      ipWhitelist: options.ipWhitelist === undefined ? undefined : list(options.ipWhitelist),
    }),
  );
  const issued = await withStores(config, async (stores) => {
    const account = await stores.accounts.get(options.account);
    if (account === null) throw accountNotFound(options.account);
    return issueKey(stores.apiKeys, createKeyHasher(config.keyHashSecret), account, input, null);
  });
  console.log(JSON.stringify(issuedKeyView(issued), null, 2));
  console.error('Store this key now: it is shown only once.');
}
