/**
 * First run in embedded mode: with no BATON_ADMIN_TOKEN, a fresh data directory gets a local
 * operator token, kept in `<dataDir>/operator-token` (owner read/write only) and used on every
 * later start, so `npm start` alone gives a working service. Never used with DATABASE_URL (a
 * shared database has an operator who sets the token) and never for a data directory that
 * already holds data without one (it started without a token before, and keeps doing so).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const TOKEN_FILE_NAME = 'operator-token';
const TOKEN_PREFIX = 'bop_';

export interface LocalOperatorToken {
  readonly token: string;
  readonly file: string;
  /** True on the start that created it: the only time it is printed. */
  readonly created: boolean;
}

function isEmptyOrMissing(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0;
}

/** The data directory's operator token, created if the directory is new; null when none applies. */
export function localOperatorToken(config: { readonly databaseUrl: string | null; readonly adminToken: string | null; readonly dataDir: string }): LocalOperatorToken | null {
  if (config.databaseUrl !== null || config.adminToken !== null) return null;
  const file = path.join(config.dataDir, TOKEN_FILE_NAME);
  if (existsSync(file)) {
    // Someone loosened the permissions: tighten them again rather than serve a readable secret.
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    const token = readFileSync(file, 'utf8').trim();
    if (token.length < 16) throw new Error(`${file}: the operator token must be at least 16 characters; delete the file to get a new one`);
    return { token, file, created: false };
  }
  if (!isEmptyOrMissing(config.dataDir)) return null;
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  // 'wx': if two starts race, the second fails here instead of overwriting the first one's token.
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, file, created: true };
}

/** What the first start prints, once: the token and where to use it. */
export function firstRunNotice(local: LocalOperatorToken, baseUrl: string): string {
  return [
    '',
    'First run: created a local operator token (kept in ' + local.file + ', readable only by you).',
    'It is printed this once:',
    '',
    `  BATON_ADMIN_TOKEN=${local.token}`,
    '',
    `Console: ${baseUrl}/console  (sign in with an account's API key; README, Quickstart)`,
    '',
  ].join('\n');
}
