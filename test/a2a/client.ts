/** The SDK's A2A client against a spawned Baton, and small helpers for its v1.0-shaped types. */
import { randomUUID } from 'node:crypto';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { Agent, fetch as undiciFetch } from 'undici';
import { Role, type Message, type StreamResponse, type Task, type TaskState } from '@a2a-js/sdk';

export type { Client };

/** `freshConnections`: each request on a new connection, so several workers behind one port all answer some. */
export async function connect(serverUrl: string, key: string, freshConnections = false): Promise<Client> {
  const authed: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${key}`);
    if (!freshConnections) return fetch(input, { ...init, headers });
    const dispatcher = new Agent();
    const response = await undiciFetch(input as string, { ...(init as object), headers: Object.fromEntries(headers), dispatcher } as unknown as Parameters<typeof undiciFetch>[1]);
    // Closed once the body is read (or the stream ends); the agent is not reused.
    void response.clone().arrayBuffer().finally(() => dispatcher.close()).catch(() => undefined);
    return response as unknown as Response;
  };
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl: authed, legacyCompat: { enabled: true } })],
    cardResolver: new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }),
  }));
  // The card is public: the client reads it without a key and finds the JSON-RPC endpoint in it.
  return factory.createFromUrl(serverUrl);
}

export function message(text: string, options: { taskId?: string; skill?: string } = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId: options.taskId ?? '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: options.skill === undefined ? undefined : { skill: options.skill },
    extensions: [],
    referenceTaskIds: [],
  };
}

export function send(client: Client, msg: Message, returnImmediately = false) {
  return client.sendMessage({
    tenant: '',
    message: msg,
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately },
    metadata: undefined,
  });
}

export function asTask(result: Task | Message): Task {
  if (!('status' in result)) throw new Error('expected a task, got a message');
  return result;
}

export function answerOf(task: Task): string {
  const part = task.artifacts.find((a) => a.artifactId === 'answer')?.parts[0];
  return part?.content?.$case === 'text' ? part.content.value : '';
}

export async function collect(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

export function states(events: StreamResponse[]): TaskState[] {
  return events.flatMap((e) => (e.payload?.$case === 'statusUpdate' ? [e.payload.value.status!.state] : e.payload?.$case === 'task' ? [e.payload.value.status!.state] : []));
}

export function approvalData(status: Task['status']): Record<string, unknown> {
  const data = status?.message?.parts.find((p) => p.content?.$case === 'data');
  return (data?.content?.$case === 'data' ? data.content.value : {}) as Record<string, unknown>;
}
