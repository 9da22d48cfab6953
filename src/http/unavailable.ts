/**
 * Recognises errors that mean a backing store (Postgres, Redis) is unreachable or restarting,
 * which clients should see as 503 SERVICE_UNAVAILABLE with Retry-After rather than a 500.
 */
import { STORE_DEADLINE_CODE } from '../ports/deadline.js';

const NETWORK_CODES = new Set([
  // A request-path store call past BATON_STORE_DEADLINE_MS (src/ports/deadline.ts).
  STORE_DEADLINE_CODE,
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  // Postgres: admin shutdown, cannot connect now, connection failures.
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
]);

export function isStoreUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown };
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  if (name === 'MaxRetriesPerRequestError') return true;
  // ioredis: "Command timed out" is its commandTimeout (a server that stopped answering).
  return typeof message === 'string' && /Connection is closed|Stream isn't writeable|Command timed out/.test(message);
}
