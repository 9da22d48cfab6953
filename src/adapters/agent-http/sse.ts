/**
 * Incremental Server-Sent Events decoder for agents that answer /execute with
 * `Content-Type: text/event-stream`.
 *
 * Streaming convention (what an agent sends; documented for agent owners in examples/agent):
 *   - each event's `data:` is one JSON object;
 *   - `{ "chunk": "text" }` carries the next piece of the answer text, forwarded live, in order;
 *   - the final event is an ordinary execute response body: `{ "result": {...}, "metadata":
 *     { "cost", "duration", ... } }` on success, or `{ "result": null, "metadata": { "cost",
 *     "duration" }, "error": "..." }` on failure; nothing after it is read;
 *   - `event:`, `id:`, `retry:` fields and `:` comments are ignored; a stream that ends without a
 *     final event is a protocol violation.
 * Multi-line `data:` fields are joined with "\n" as the SSE specification says.
 */

export class SseDecoder {
  private buffer = '';
  private data: string[] = [];

  /**
   * Feeds decoded text; `onData` is called with each complete event's data, in order.
   * Returns false as soon as `onData` returns false (the caller wants no more).
   */
  push(text: string, onData: (data: string) => boolean): boolean {
    this.buffer += text;
    let start = 0;
    const buffer = this.buffer;
    for (;;) {
      const lf = buffer.indexOf('\n', start);
      const cr = buffer.indexOf('\r', start);
      let end: number;
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        // A CR at the end of the text may be the first half of CRLF: wait for more.
        if (cr === buffer.length - 1) break;
        end = cr;
        next = buffer[cr + 1] === '\n' ? cr + 2 : cr + 1;
      } else if (lf !== -1) {
        end = lf;
        next = lf + 1;
      } else {
        break;
      }
      const keepGoing = this.line(buffer.slice(start, end), onData);
      start = next;
      if (!keepGoing) {
        this.buffer = buffer.slice(start);
        return false;
      }
    }
    this.buffer = buffer.slice(start);
    return true;
  }

  /**
   * Ends the stream. A CR held back as a possible CRLF half is a line end after all; an event
   * not terminated by a blank line is dropped, per the spec.
   */
  finish(onData: (data: string) => boolean): void {
    if (this.buffer.endsWith('\r')) this.push('\n', onData);
    this.buffer = '';
    this.data = [];
  }

  private line(line: string, onData: (data: string) => boolean): boolean {
    if (line === '') {
      if (this.data.length === 0) return true;
      const data = this.data.join('\n');
      this.data = [];
      // The spec dispatches nothing for empty data.
      return data === '' ? true : onData(data);
    }
    if (line.startsWith(':')) return true;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== 'data') return true;
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    this.data.push(value);
    return true;
  }
}
