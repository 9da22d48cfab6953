/** The logging the store adapters need; a pino logger satisfies it. */
export interface StoreLogger {
  warn(context: object, message: string): void;
  error(context: object, message: string): void;
}

/** Used when the caller passes no logger: structured lines on stderr. */
export const stderrLogger: StoreLogger = {
  warn: (context, message) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg: message, ...errorFields(context) })}\n`),
  error: (context, message) =>
    process.stderr.write(`${JSON.stringify({ level: 'error', msg: message, ...errorFields(context) })}\n`),
};

function errorFields(context: object): object {
  const err = (context as { err?: unknown }).err;
  return err instanceof Error ? { ...context, err: { message: err.message, name: err.name } } : context;
}
