/**
 * A real A2A agent for the registration tests: the SDK's DefaultRequestHandler with an
 * InMemoryTaskStore and a small AgentExecutor, served over the SDK's v0.3 JSON-RPC transport
 * handler on 127.0.0.1, with its v0.3 agent card at /.well-known/agent-card.json. The executor
 * answers with an artifact (`forecast: <text>`), or ends the task failed when the text says
 * "fail", or asks for input when it says "more".
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Role, TaskState, type AgentCard, type Message, type Task } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, ServerCallContext, type AgentExecutor } from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';

export interface TestA2aAgent {
  readonly url: string;
  readonly cardUrl: string;
  /** Each user message's text parts and data parts, in order. */
  readonly received: Array<{ readonly text: string; readonly data: unknown[] }>;
  cardFetches: number;
  close(): Promise<void>;
}

const SKILLS = [
  { id: 'forecast', name: 'Weather forecast', description: 'Forecasts the weather for a city', tags: ['weather', 'forecast'], examples: ['What is the weather in Lisbon tomorrow?'] },
];

function textPart(value: string) {
  return { content: { $case: 'text' as const, value }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function agentMessage(text: string, taskId: string, contextId: string): Message {
  return { messageId: `m-${Math.random().toString(36).slice(2)}`, contextId, taskId, role: Role.ROLE_AGENT, parts: [textPart(text)], metadata: undefined, extensions: [], referenceTaskIds: [] };
}

function executor(received: TestA2aAgent['received']): AgentExecutor {
  return {
    async execute(context, bus) {
      const parts = context.userMessage.parts;
      const text = parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('\n');
      const data = parts.flatMap((p) => (p.content?.$case === 'data' ? [p.content.value] : []));
      received.push({ text, data });
      const { taskId, contextId } = context;
      const task: Task = { id: taskId, contextId, status: undefined, artifacts: [], history: [context.userMessage], metadata: undefined };
      if (/fail/i.test(text)) {
        task.status = { state: TaskState.TASK_STATE_FAILED, message: agentMessage('no forecasts for that place', taskId, contextId), timestamp: new Date().toISOString() };
      } else if (/more/i.test(text)) {
        task.status = { state: TaskState.TASK_STATE_INPUT_REQUIRED, message: agentMessage('which city?', taskId, contextId), timestamp: new Date().toISOString() };
      } else {
        task.status = { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: new Date().toISOString() };
        task.artifacts = [{ artifactId: 'a1', name: 'forecast', description: '', parts: [textPart(`forecast: sunny for "${text}"`)], metadata: undefined, extensions: [] }];
      }
      bus.publish(AgentEvent.task(task));
      bus.finished();
    },
    async cancelTask() {},
  };
}

export async function startA2aAgent(): Promise<TestA2aAgent> {
  const received: TestA2aAgent['received'] = [];
  let server: http.Server | undefined;
  // Built on the first request, once the port (and so the card's URL) is known.
  let rpc: LegacyJsonRpcTransportHandler | undefined;
  const state: TestA2aAgent = {
    url: '',
    cardUrl: '',
    received,
    cardFetches: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server!.closeAllConnections();
        server!.close(() => resolve());
      }),
  };
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
          state.cardFetches += 1;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(legacyCard(state.url)));
          return;
        }
        if (req.method !== 'POST' || req.url !== '/a2a') {
          res.writeHead(404).end();
          return;
        }
        rpc ??= new LegacyJsonRpcTransportHandler(new DefaultRequestHandler(card(state.url), new InMemoryTaskStore(), executor(received)));
        const answer = await rpc.handle(JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>, new ServerCallContext());
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      })();
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, { url: base, cardUrl: `${base}/.well-known/agent-card.json` });
}

function card(url: string): AgentCard {
  return {
    name: 'Weather Agent',
    description: 'Answers weather questions.',
    supportedInterfaces: [{ url: `${url}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' }],
    provider: undefined,
    version: '1.0.0',
    capabilities: undefined,
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: SKILLS.map((s) => ({ ...s, inputModes: [], outputModes: [], securityRequirements: [] })),
    signatures: [],
  };
}

/** The card as a v0.3 agent publishes it. */
function legacyCard(url: string): Record<string, unknown> {
  return {
    protocolVersion: '0.3.0',
    name: 'Weather Agent',
    description: 'Answers weather questions.',
    url: `${url}/a2a`,
    preferredTransport: 'JSONRPC',
    version: '1.0.0',
    capabilities: { streaming: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: SKILLS,
  };
}
