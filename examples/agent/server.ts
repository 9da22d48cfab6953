/**
 * An example Baton agent: a plain node:http server with the three protocol endpoints. Copy it,
 * replace `work()` with what your agent does, keep the rest.
 *
 *   PORT=3000 npx tsx examples/agent/server.ts
 *
 * It needs nothing but Node 20. Baton calls agents over public HTTPS: put this behind a TLS
 * terminating proxy (or use node:https) when you deploy it.
 */
import http from 'node:http';

const PORT = Number(process.env.PORT ?? 3000);
const MAX_BODY_BYTES = 1024 * 1024;
/** Baton never sends more than this; a bigger value is clamped rather than trusted. */
const MAX_TIMEOUT_MS = 300_000;
const PRICE_USD = 0.01;

const INFO = {
  id: 'example-word-stats',
  name: 'Word statistics',
  description: 'Counts words and sentences in the prompt and lists the most frequent words.',
  version: '1.0.0',
  capabilities: ['text-analysis', 'word-count'],
  pricing: { model: 'per_execution', basePrice: PRICE_USD },
};

interface ExecuteRequest {
  input: { prompt: string; context: Record<string, unknown> };
  metadata: { requestId: string; userId: string; timeout: number };
}

/** The agent's actual work. It must stop when `signal` aborts (the deadline passed). */
async function work(request: ExecuteRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
  const words = request.input.prompt.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  const counts = new Map<string, number>();
  for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
  // Stands in for slow work (a model call): abortable, so the deadline actually stops it.
  await sleep(50, signal);
  const top = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5);
  return {
    words: words.length,
    sentences: request.input.prompt.split(/[.!?]+/).filter((s) => s.trim() !== '').length,
    topWords: top.map(([word, count]) => ({ word, count })),
    answer: `${words.length} words; most frequent: ${top.map(([w]) => w).join(', ') || 'none'}`,
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The protocol's failure answer: HTTP 500 (or 400 for a bad request) with result null. */
function sendFailure(res: http.ServerResponse, status: number, error: string, startedMs: number, cost = 0): void {
  if (res.headersSent || res.destroyed) return;
  sendJson(res, status, { result: null, metadata: { cost, duration: Date.now() - startedMs }, error });
}

function parseExecute(raw: string): ExecuteRequest | string {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return 'body is not JSON';
  }
  const b = body as Partial<ExecuteRequest> | null;
  if (typeof b?.input?.prompt !== 'string') return 'input.prompt must be a string';
  if (typeof b.metadata?.timeout !== 'number' || !(b.metadata.timeout > 0)) return 'metadata.timeout must be a positive number';
  return {
    input: { prompt: b.input.prompt, context: b.input.context ?? {} },
    metadata: { requestId: String(b.metadata.requestId ?? ''), userId: String(b.metadata.userId ?? ''), timeout: b.metadata.timeout },
  };
}

async function execute(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
  const startedMs = Date.now();
  const request = parseExecute(raw);
  if (typeof request === 'string') return sendFailure(res, 400, request, startedMs);

  // Honour metadata.timeout: past it, Baton has given up, so stop working and stop paying.
  const deadline = AbortSignal.timeout(Math.min(request.metadata.timeout, MAX_TIMEOUT_MS));
  const hangUp = new AbortController();
  res.on('close', () => hangUp.abort(new Error('client closed the connection')));
  const signal = AbortSignal.any([deadline, hangUp.signal]);

  let result: Record<string, unknown>;
  try {
    result = await work(request, signal);
  } catch (err) {
    const why = deadline.aborted ? `timed out after ${request.metadata.timeout} ms` : String(err);
    return sendFailure(res, 500, why, startedMs);
  }
  const metadata = { cost: PRICE_USD, duration: Date.now() - startedMs, model: 'word-stats-1' };

  // Streaming is optional: offered only to a caller that asks for it.
  if (String(req.headers.accept ?? '').includes('text/event-stream')) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const piece of String(result.answer).split(/(?<=\s)/)) {
      res.write(`data: ${JSON.stringify({ chunk: piece })}\n\n`);
    }
    res.end(`data: ${JSON.stringify({ result, metadata })}\n\n`);
    return;
  }
  sendJson(res, 200, { result, metadata });
}

const server = http.createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0];
  if (req.method === 'GET' && path === '/health') {
    return sendJson(res, 200, { status: 'healthy', timestamp: Math.floor(Date.now() / 1000) });
  }
  if (req.method === 'GET' && path === '/info') return sendJson(res, 200, INFO);
  if (req.method !== 'POST' || path !== '/execute') return sendJson(res, 404, { error: 'not found' });

  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      sendFailure(res, 413, 'request body too large', Date.now());
      req.destroy();
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    execute(req, res, Buffer.concat(chunks).toString('utf8')).catch((err: unknown) => {
      sendFailure(res, 500, `internal error: ${String(err)}`, Date.now());
    });
  });
});

server.listen(PORT, () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : PORT;
  console.log(`example agent listening on http://localhost:${port} (GET /health, GET /info, POST /execute)`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
