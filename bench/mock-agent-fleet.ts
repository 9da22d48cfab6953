/**
 * A fleet of mock agents speaking the agent protocol (spec §2.8, §4.13), each on its own
 * 127.0.0.1 ephemeral port in this process, for tests and benches. Each agent is configurable
 * (info, latency, failure modes, output, cost, SSE streaming), records what it received so tests
 * can assert on it, and can be reconfigured while running (`agent.configure({...})`).
 *
 *   const fleet = await startMockAgentFleet([{ latencyMs: 20 }, { failure: { mode: 'hang' } }]);
 *   fleet.agents[0].url  // http://127.0.0.1:PORT
 *   await fleet.close();
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MockAgentInfo {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly version: string;
  readonly capabilities: readonly string[];
  readonly pricing: { readonly model: string; readonly basePrice: number };
}

/** How /execute misbehaves. */
export type MockFailure =
  /** Spec failure body: `{ result: null, metadata: { cost, duration }, error }` (default status 500). */
  | { readonly mode: 'error'; readonly status?: number; readonly error?: string; readonly cost?: number }
  /** Never answers; the socket stays open until the client gives up or the fleet closes. */
  | { readonly mode: 'hang' }
  /** 200 with a body that is not JSON. */
  | { readonly mode: 'garbage' }
  /** 200 JSON that does not match the execute response shape. */
  | { readonly mode: 'wrong_shape' }
  /** 200 with a valid-looking JSON body of `bytes` bytes (default 4 MiB), chunked unless declared. */
  | { readonly mode: 'huge'; readonly bytes?: number; readonly declareLength?: boolean }
  /** Sends the head and part of the body, then destroys the socket. */
  | { readonly mode: 'reset' }
  /** A bare HTTP status with an arbitrary body (e.g. 502 from a proxy). */
  | { readonly mode: 'status'; readonly status: number; readonly body?: string };

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<http.IncomingHttpHeaders>;
  /** Parsed JSON body when it was JSON, the raw text otherwise, undefined when empty. */
  readonly body: unknown;
  readonly receivedAtMs: number;
  /** Set when the client hung up before the agent finished answering. */
  clientClosedEarly: boolean;
}

export interface MockStream {
  /** Text chunks sent as `{ "chunk": text }` events, in order. */
  readonly chunks: readonly string[] | ((request: RecordedRequest) => readonly string[]);
  readonly chunkDelayMs?: number;
  /** What ends the stream: the result event (default), a failure event, or nothing. */
  readonly end?: 'result' | 'error' | 'none';
}

export interface MockAgentConfig {
  readonly info?: Partial<MockAgentInfo>;
  /** Delay before /execute answers (and between head and body for nothing else). */
  readonly latencyMs?: number;
  /** Failure mode for /execute; a function decides per call (n counts /execute calls from 1). */
  readonly failure?: MockFailure | null | ((n: number, request: RecordedRequest) => MockFailure | null);
  /** /health answer: `unhealthy` is 503 `{ status: 'unhealthy' }`; `hang` never answers. */
  readonly health?: 'healthy' | 'unhealthy' | 'hang';
  /** Success `result`; default `{ answer: '<id>: <prompt>' }`. */
  readonly output?: Readonly<Record<string, unknown>> | ((request: RecordedRequest) => Readonly<Record<string, unknown>>);
  /** Reported metadata.cost (USD); default the info's basePrice. */
  readonly cost?: number;
  /** Extra success metadata (model, tokensUsed). */
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** Answer /execute as an event stream. */
  readonly stream?: MockStream;
  /** Close the listening socket as soon as it is bound: the URL then refuses connections. */
  readonly refuseAfterStart?: boolean;
  /** Keep received requests in `requests` (benches turn it off to bound memory). Default true. */
  readonly record?: boolean;
}

export interface MockAgent {
  readonly url: string;
  readonly port: number;
  readonly info: MockAgentInfo;
  /** Every request received, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Number of /execute calls received (counted even when not recorded). */
  readonly executeCount: number;
  /** TCP connections accepted so far (keep-alive reuse shows as fewer connections than requests). */
  readonly connectionCount: number;
  /** Replaces parts of the configuration for subsequent requests. */
  configure(patch: MockAgentConfig): void;
  /** Stops listening and drops open connections: later calls are refused. */
  refuse(): Promise<void>;
  close(): Promise<void>;
}

export interface MockAgentFleet {
  readonly agents: readonly MockAgent[];
  /** The i-th agent; throws on a bad index so tests fail loudly. */
  agent(index: number): MockAgent;
  close(): Promise<void>;
}

/** Starts one mock agent per config (or `count` default agents) on 127.0.0.1. */
export async function startMockAgentFleet(configs: readonly MockAgentConfig[] | number): Promise<MockAgentFleet> {
  const list = typeof configs === 'number' ? Array.from({ length: configs }, () => ({})) : configs;
  const agents = await Promise.all(list.map((config, index) => startMockAgent(config, index)));
  return {
    agents,
    agent(index: number): MockAgent {
      const found = agents[index];
      if (found === undefined) throw new RangeError(`No mock agent ${index} (fleet of ${agents.length})`);
      return found;
    },
    async close(): Promise<void> {
      await Promise.all(agents.map((agent) => agent.close()));
    },
  };
}

function defaultInfo(index: number, patch: Partial<MockAgentInfo> | undefined): MockAgentInfo {
  return {
    id: `mock-agent-${index + 1}`,
    name: `Mock Agent ${index + 1}`,
    description: 'A mock agent that echoes its prompt',
    version: '1.0.0',
    capabilities: ['echo'],
    pricing: { model: 'per_execution', basePrice: 0.01 },
    ...patch,
  };
}

/** Starts a single mock agent; `index` only seeds its default id and name. */
export async function startMockAgent(initial: MockAgentConfig = {}, index = 0): Promise<MockAgent> {
  let config: MockAgentConfig = initial;
  let info = defaultInfo(index, initial.info);
  let executeCount = 0;
  let connectionCount = 0;
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  const later = (ms: number, fn: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

  const server = http.createServer({ keepAlive: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: (req.url ?? '/').split('?')[0] ?? '/',
        headers: req.headers,
        body: parseBody(raw),
        receivedAtMs: Date.now(),
        clientClosedEarly: false,
      };
      res.on('close', () => {
        if (!res.writableFinished) recorded.clientClosedEarly = true;
      });
      if (config.record !== false) requests.push(recorded);
      route(recorded, res);
    });
  });
  server.keepAliveTimeout = 5_000;
  server.on('connection', () => {
    connectionCount += 1;
  });

  function route(request: RecordedRequest, res: http.ServerResponse): void {
    if (request.method === 'GET' && request.path === '/health') return answerHealth(res);
    if (request.method === 'GET' && request.path === '/info') return sendJson(res, 200, info);
    if (request.method === 'POST' && request.path === '/execute') {
      executeCount += 1;
      const startedMs = Date.now();
      const failure = typeof config.failure === 'function' ? config.failure(executeCount, request) : config.failure;
      const answer = (): void => {
        if (res.destroyed) return;
        if (failure) return answerFailure(failure, res, startedMs);
        if (config.stream) return answerStream(config.stream, request, res, startedMs);
        sendJson(res, 200, successBody(request, startedMs));
      };
      if (failure?.mode === 'hang') return;
      const latency = config.latencyMs ?? 0;
      if (latency > 0) later(latency, answer);
      else answer();
      return;
    }
    sendJson(res, 404, { error: 'not found' });
  }

  function answerHealth(res: http.ServerResponse): void {
    const health = config.health ?? 'healthy';
    if (health === 'hang') return;
    const timestamp = Math.floor(Date.now() / 1000);
    if (health === 'unhealthy') return sendJson(res, 503, { status: 'unhealthy', timestamp });
    sendJson(res, 200, { status: 'healthy', timestamp });
  }

  function cost(): number {
    return config.cost ?? info.pricing.basePrice;
  }

  function successBody(request: RecordedRequest, startedMs: number): Record<string, unknown> {
    const output = typeof config.output === 'function'
      ? config.output(request)
      : config.output ?? { answer: `${info.id}: ${promptOf(request)}` };
    return {
      result: output,
      metadata: { cost: cost(), duration: Date.now() - startedMs, ...config.metadata },
    };
  }

  function answerFailure(failure: MockFailure, res: http.ServerResponse, startedMs: number): void {
    switch (failure.mode) {
      case 'error':
        return sendJson(res, failure.status ?? 500, {
          result: null,
          metadata: { cost: failure.cost ?? cost(), duration: Date.now() - startedMs },
          error: failure.error ?? 'mock agent failure',
        });
      case 'garbage':
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end('<html>definitely not json');
      case 'wrong_shape':
        return sendJson(res, 200, { output: 'no result field', cost: 'free' });
      case 'status':
        res.writeHead(failure.status, { 'content-type': 'text/plain' });
        return void res.end(failure.body ?? `status ${failure.status}`);
      case 'reset':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"result":{"partial":');
        later(10, () => res.socket?.destroy());
        return;
      case 'huge':
        return writeHuge(res, failure.bytes ?? 4 * 1024 * 1024, failure.declareLength === true);
      case 'hang':
        return;
    }
  }

  function answerStream(stream: MockStream, request: RecordedRequest, res: http.ServerResponse, startedMs: number): void {
    const chunks = typeof stream.chunks === 'function' ? stream.chunks(request) : stream.chunks;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(': mock agent stream\n\n');
    let i = 0;
    const next = (): void => {
      if (res.destroyed) return;
      const chunk = chunks[i];
      if (chunk !== undefined) {
        i += 1;
        res.write(`data: ${JSON.stringify({ chunk })}\n\n`);
        if (stream.chunkDelayMs) later(stream.chunkDelayMs, next);
        else next();
        return;
      }
      const end = stream.end ?? 'result';
      if (end === 'result') {
        const body = successBody(request, startedMs);
        if (config.output === undefined) body.result = { answer: chunks.join('') };
        res.write(`event: result\ndata: ${JSON.stringify(body)}\n\n`);
      } else if (end === 'error') {
        const body = { result: null, metadata: { cost: cost(), duration: Date.now() - startedMs }, error: 'stream failed' };
        res.write(`data: ${JSON.stringify(body)}\n\n`);
      }
      res.end();
    };
    next();
  }

  function writeHuge(res: http.ServerResponse, bytes: number, declareLength: boolean): void {
    const head = '{"result":{"blob":"';
    const tail = '"},"metadata":{"cost":0,"duration":0}}';
    const fill = Math.max(0, bytes - head.length - tail.length);
    const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json' };
    if (declareLength) headers['content-length'] = String(head.length + fill + tail.length);
    res.writeHead(200, headers);
    res.write(head);
    const block = 'x'.repeat(64 * 1024);
    let left = fill;
    const pump = (): void => {
      while (left > 0 && !res.destroyed) {
        const piece = left >= block.length ? block : block.slice(0, left);
        left -= piece.length;
        if (!res.write(piece)) {
          res.once('drain', pump);
          return;
        }
      }
      if (!res.destroyed) res.end(tail);
    };
    pump();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  async function stopListening(): Promise<void> {
    if (closed) return;
    closed = true;
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    const done = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await done;
  }

  if (initial.refuseAfterStart === true) await stopListening();

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get info() {
      return info;
    },
    requests,
    get executeCount() {
      return executeCount;
    },
    get connectionCount() {
      return connectionCount;
    },
    configure(patch: MockAgentConfig): void {
      config = { ...config, ...patch };
      if (patch.info) info = { ...info, ...patch.info };
    },
    refuse: stopListening,
    close: stopListening,
  };
}

function parseBody(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function promptOf(request: RecordedRequest): string {
  const body = request.body;
  if (typeof body !== 'object' || body === null) return '';
  const input = (body as { input?: { prompt?: unknown } }).input;
  return typeof input?.prompt === 'string' ? input.prompt : '';
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
