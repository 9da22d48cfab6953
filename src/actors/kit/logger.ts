/** The logging actors need; a pino logger (or child) satisfies it. Context object first, then the message. */
export interface KitLogger {
  info(context: object, message: string): void;
  warn(context: object, message: string): void;
  error(context: object, message: string): void;
}

/** For tests and tools that want no output. */
export const silentLogger: KitLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
