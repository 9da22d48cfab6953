/**
 * A workflow run's event stream read with fetch, since EventSource cannot send the
 * Authorization header. On a dropped connection it reconnects with Last-Event-ID, so no event
 * is lost or repeated; it stops after `done` or when closed.
 */
import { authHeaders } from './api';

export interface RunEvent {
  readonly id: number | null;
  readonly type: string;
  readonly data: Record<string, unknown>;
}

const RETRY_MS = 1_000;

export function followRun(runId: string, key: string, onEvent: (event: RunEvent) => void, onState: (state: string) => void): () => void {
  const abort = new AbortController();
  let lastId = 0;
  let finished = false;

  const handle = (block: string): void => {
    let id: number | null = null;
    let type = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id' && /^\d+$/.test(value)) id = Number(value);
      else if (field === 'event') type = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length === 0) return;
    if (id !== null) lastId = id;
    if (type === 'done') finished = true;
    onEvent({ id, type, data: JSON.parse(data.join('\n')) as Record<string, unknown> });
  };

  const connect = async (): Promise<void> => {
    while (!finished && !abort.signal.aborted) {
      try {
        onState('connecting');
        const headers: Record<string, string> = { ...authHeaders(key), accept: 'text/event-stream' };
        if (lastId > 0) headers['last-event-id'] = String(lastId);
        const response = await fetch(`/api/v1/workflows/execute/${encodeURIComponent(runId)}/stream`, { headers, signal: abort.signal });
        if (!response.ok || response.body === null) {
          onState(`stream refused (HTTP ${response.status})`);
          return;
        }
        onState('live');
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value.replace(/\r\n?/g, '\n');
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            handle(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
        }
      } catch {
        if (abort.signal.aborted) return;
      }
      if (!finished) {
        onState('reconnecting');
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
    if (finished) onState('ended');
  };
  void connect();
  return () => abort.abort();
}
