/**
 * Errors the actor kit raises to its callers. Each carries a stable `code` and whether retrying
 * the same call may succeed (`retryable`), as data.
 */

/** An `ask` got no reply within its timeout. A reply arriving later is dropped. */
export class AskTimeout extends Error {
  readonly code = 'ASK_TIMEOUT';
  readonly retryable = true;
  readonly messageType: string;
  readonly timeoutMs: number;

  constructor(messageType: string, timeoutMs: number) {
    super(`no reply to '${messageType}' within ${timeoutMs} ms`);
    this.name = 'AskTimeout';
    this.messageType = messageType;
    this.timeoutMs = timeoutMs;
  }
}

/** An `ask` targeted an actor that is stopped or never existed; the message was not delivered. */
export class AskTargetStopped extends Error {
  readonly code = 'ASK_TARGET_STOPPED';
  readonly retryable = false;
  readonly messageType: string;

  constructor(messageType: string, options?: ErrorOptions) {
    super(`cannot ask '${messageType}': the actor is stopped or never existed`, options);
    this.name = 'AskTargetStopped';
    this.messageType = messageType;
  }
}
