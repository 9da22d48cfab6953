/**
 * An example workflow agent and the tool it uses, on one node:http server (the demo's second
 * agent; docs/workflows.md describes the loop):
 *
 *   POST /execute        first round: asks Baton to call the `publish` tool with a draft of the
 *                        task; next round: answers with what the tool returned (or why not)
 *   POST /tools/publish  the tool: "publishes" the draft and returns where (nothing leaves this
 *                        process; it stands in for something with side effects, hence high risk)
 *
 *   PORT=3001 npx tsx examples/workflow-agent/server.ts
 */
import http from 'node:http';

const PORT = Number(process.env.PORT ?? 3001);
const MAX_BODY_BYTES = 1024 * 1024;

const INFO = {
  id: 'example-publisher',
  name: 'Report publisher',
  description: 'Drafts a short report from the task and publishes it with the publish tool.',
  version: '1.0.0',
  capabilities: ['reports', 'publishing'],
  pricing: { model: 'per_execution', basePrice: 0.002 },
};

interface ToolResult {
  readonly id: string;
  readonly name: string;
  readonly result?: unknown;
  readonly error?: string;
}

interface ExecuteRequest {
  input: { prompt: string; context: { toolResults?: ToolResult[] } };
}

let published = 0;

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** One round of the agent loop: ask for the tool, or answer with its outcome. */
function round(request: ExecuteRequest): Record<string, unknown> {
  const results = request.input.context.toolResults ?? [];
  if (results.length === 0) {
    const draft = `Report: ${request.input.prompt.slice(0, 200)}`;
    return { toolCalls: [{ id: 'call_1', name: 'publish', input: { title: request.input.prompt.slice(0, 80), body: draft } }] };
  }
  const outcome = results[0]!;
  if (outcome.error !== undefined) return { answer: `Not published (${outcome.error}).` };
  return { answer: `Published: ${JSON.stringify(outcome.result)}` };
}

function readJson(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'));
      } catch (error) {
        reject(error);
      }
    });
    req.on('error', reject);
  });
}

const server = http.createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0];
  if (req.method === 'GET' && path === '/health') return sendJson(res, 200, { status: 'healthy', timestamp: Math.floor(Date.now() / 1000) });
  if (req.method === 'GET' && path === '/info') return sendJson(res, 200, INFO);
  if (req.method !== 'POST' || (path !== '/execute' && path !== '/tools/publish')) return sendJson(res, 404, { error: 'not found' });
  const started = Date.now();
  readJson(req).then(
    (body) => {
      if (path === '/tools/publish') {
        published += 1;
        return sendJson(res, 200, { published: true, id: `report-${published}`, title: (body as { input?: { title?: unknown } } | null)?.input?.title ?? null });
      }
      const result = round(body as ExecuteRequest);
      return sendJson(res, 200, { result, metadata: { cost: INFO.pricing.basePrice, duration: Date.now() - started } });
    },
    (error: unknown) => sendJson(res, 400, { result: null, metadata: { cost: 0, duration: 0 }, error: `bad request: ${String(error)}` }),
  );
});

server.listen(PORT, () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : PORT;
  console.log(`example workflow agent listening on http://localhost:${port} (GET /health, GET /info, POST /execute, POST /tools/publish)`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
