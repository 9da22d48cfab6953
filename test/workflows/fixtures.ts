/** Shared pieces of the workflow end-to-end tests: a tool server, agents that call tools, setup. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MockAgent, MockAgentConfig, RecordedRequest } from '../fixtures/mock-agent-fleet.js';
import { registerAgents } from '../helpers/agents.js';
import { api, createAccountWithKey } from '../helpers/server.js';

export { registerAgents };

export interface ToolServer {
  readonly url: string;
  /** Bodies received, per path. */
  readonly calls: Array<{ readonly path: string; readonly body: unknown }>;
  close(): Promise<void>;
}

/** Answers POST /<name> with `{ echoed: input, tool: name }`, plus `pad` characters when input.pad is a number. */
export async function startToolServer(): Promise<ToolServer> {
  const calls: Array<{ path: string; body: unknown }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || 'null') as { input?: unknown } | null;
      const path = req.url ?? '/';
      calls.push({ path, body });
      const pad = (body?.input as { pad?: unknown } | undefined)?.pad;
      const text = JSON.stringify({ echoed: body?.input ?? null, tool: path.slice(1), ...(typeof pad === 'number' ? { pad: 'x'.repeat(pad) } : {}) });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface ExecuteBody {
  readonly input: { readonly prompt: string; readonly context: { readonly toolResults: ReadonlyArray<Record<string, unknown>>; readonly history: readonly unknown[] } };
}

export function executeBody(request: RecordedRequest): ExecuteBody {
  return request.body as ExecuteBody;
}

/**
 * An agent that asks for `tool` once (with `input`) and then answers with what the tool gave
 * back, or with the error it got: `answer: <json of the first tool result>`.
 */
export function toolUsingAgent(id: string, tool: string, input: Record<string, unknown> = { q: 'weather' }): MockAgentConfig {
  return {
    info: { id, name: `Agent ${id}`, description: 'calls a tool then answers', capabilities: ['tools'] },
    output: (request) => {
      const results = executeBody(request).input.context.toolResults;
      if (results.length === 0) return { toolCalls: [{ id: 'call_1', name: tool, input }] };
      return { answer: `answer: ${JSON.stringify(results[0])}` };
    },
  };
}


export interface WorkflowSetup {
  readonly key: string;
  readonly accountId: string;
  readonly agent: MockAgent;
  readonly slug: string;
}

let counter = 0;

/** A fresh account, one agent and a one-step workflow whose step may use `tool` at `risk`. */
export async function setupWorkflow(
  server: { url: string },
  tools: ToolServer,
  teardown: (fn: () => unknown) => void,
  options: { risk?: 'low' | 'high'; agent?: MockAgentConfig; extra?: Record<string, unknown>; permissions?: string[] } = {},
): Promise<WorkflowSetup> {
  const { key, accountId } = await createAccountWithKey(server, 'BUSINESS', options.permissions ?? ['*']);
  counter += 1;
  const agentId = `wf-agent-${counter}`;
  const [agent] = await registerAgents(server, key, [options.agent ?? toolUsingAgent(agentId, 'lookup')], teardown);
  const slug = `flow-${counter}`;
  const res = await api(server, 'POST', '/v1/workflows', {
    key,
    body: {
      slug,
      name: `Flow ${counter}`,
      steps: [{ id: 'main', agent: agent!.info.id, tools: [{ name: 'lookup', description: 'looks things up', url: `${tools.url}/lookup`, inputSchema: { type: 'object' }, risk: options.risk ?? 'low' }] }],
      ...options.extra,
    },
  });
  if (res.status !== 201) throw new Error(`workflow creation failed: ${res.status} ${res.text}`);
  return { key, accountId, agent: agent!, slug };
}

export async function runWorkflow(server: { url: string }, key: string, slug: string, task = 'what is the weather'): Promise<string> {
  const res = await api(server, 'POST', `/v1/workflows/${slug}/run`, { key, body: { task } });
  if (res.status !== 200) throw new Error(`run failed: ${res.status} ${res.text}`);
  return res.body.execution_id as string;
}

export async function waitForStatus(server: { url: string }, key: string, id: string, wanted: string[], timeoutMs = 15_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(server, 'GET', `/v1/workflows/execute/${id}`, { key });
    if (wanted.includes(res.body.status as string)) return res.body;
    if (Date.now() > deadline) throw new Error(`run ${id} still ${res.body.status as string}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
