/**
 * Writing responses to uWS. Every write happens inside `cork` (required after an await, and it
 * batches the status, headers and body into one syscall) and never after the client aborted.
 */
import { STATUS_CODES } from 'node:http';
import type { HttpResponse } from 'uWebSockets.js';

const statusLines = new Map<number, string>();

export function statusLine(status: number): string {
  let line = statusLines.get(status);
  if (line === undefined) {
    line = `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
    statusLines.set(status, line);
  }
  return line;
}

export interface ResponseState {
  aborted: boolean;
  responded: boolean;
}

export function writeResponse(
  res: HttpResponse,
  state: ResponseState,
  status: number,
  headers: Readonly<Record<string, string>>,
  body: string | Buffer | undefined,
  closeConnection = false,
): void {
  if (state.aborted || state.responded) return;
  state.responded = true;
  res.cork(() => {
    res.writeStatus(statusLine(status));
    for (const name in headers) res.writeHeader(name, headers[name]!);
    res.end(body ?? '', closeConnection);
  });
}
