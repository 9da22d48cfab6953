/** Following an orchestration execution through the API, as a client would. */
import { api } from './server.js';

const TERMINAL = ['COMPLETED', 'FAILED', 'CANCELLED'];

/** Polls GET /v1/executions/{id} every 50 ms until the execution is terminal; throws after `timeoutMs`. */
export async function waitForExecutionEnd(server: { url: string }, key: string, id: string, timeoutMs = 15_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(server, 'GET', `/v1/executions/${id}`, { key });
    if (res.status !== 200) throw new Error(`status read failed: ${res.status} ${res.text}`);
    if (TERMINAL.includes(res.body.status as string)) return res.body;
    if (Date.now() > deadline) throw new Error(`execution ${id} still ${res.body.status as string}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
