/**
 * Store errors another attempt cannot fix: a bug in the caller (TypeError and kin) or a
 * statement Postgres refuses for what it says (SQLSTATE class 22 data exception, 23 integrity
 * constraint violation, 42 syntax or access rule). Everything else (lost connection, restart,
 * deadlock victim 40P01, serialization failure, timeouts) is worth retrying.
 */
const PERMANENT_SQLSTATE_CLASSES = new Set(['22', '23', '42']);

export function isPermanentStoreError(error: unknown): boolean {
  if (error instanceof TypeError || error instanceof RangeError || error instanceof SyntaxError) return true;
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && PERMANENT_SQLSTATE_CLASSES.has(code.slice(0, 2));
}
