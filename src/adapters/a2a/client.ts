/**
 * Calling an agent registered by its A2A card, in the shape of Baton's agent protocol client so
 * the agent actor treats it like any other agent: health is a fetch of the card; execute sends
 * the prompt (and the context, as a data part) with JSON-RPC `message/send` (blocking) and maps
 * the Task or Message onto an outcome (task-outcome.ts), asking `tasks/get` while a task is still
 * running, within the call's deadline. The agent reports no cost, so the base price is charged.
 * A small JSON-RPC call rather than the SDK's client: the SDK client speaks v1.0 shapes through a
 * compatibility layer, while this needs one method and full control of deadline and size.
 */
import { randomUUID } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { createGuardedFetch, type GuardedFetch } from '../outbound/guarded-fetch.js';
import { isUrlNotAllowedError } from '../../domain/url-policy.js';
import type { AgentRecord } from '../../domain/agents.js';
import type { AgentClient } from '../../ports/agent-client.js';
import type { AgentCallFailure, ExecuteOutcome, HealthOutcome } from '../../ports/agent-outcomes.js';
import { DEFAULT_PROBE_TIMEOUT_MS } from '../agent-http/index.js';
import { CARD_MAX_BYTES, fetchAgentCard } from '../../logic/a2a/card.js';
import { readA2aResult } from '../../logic/a2a/task-outcome.js';

export type A2aAgentCaller = Pick<AgentClient, 'execute' | 'executeStreaming' | 'getHealth'>;

export interface A2aAgents {
  /** Fetches cards at registration (capped at CARD_MAX_BYTES). */
  readonly cardFetch: GuardedFetch;
  /** The caller for one A2A agent; its `baseUrl` arguments are ignored for the record's URLs. */
  forAgent(record: Pick<AgentRecord, 'url' | 'a2aCardUrl'>): A2aAgentCaller;
}

const FIRST_POLL_MS = 250;
const MAX_POLL_MS = 2_000;
const MAX_JSON_RPC_ERROR = 500;

export function createA2aAgents(options: { readonly dispatcher: Dispatcher; readonly allowPrivate: boolean }): A2aAgents {
  const cardFetch = createGuardedFetch({ ...options, maxBytes: CARD_MAX_BYTES });
  const callFetch = createGuardedFetch(options);
  return {
    cardFetch,
    forAgent(record) {
      const cardUrl = record.a2aCardUrl ?? record.url;
      const execute: A2aAgentCaller['execute'] = (_baseUrl, body, exec = {}) => sendMessage(callFetch, record.url, body, exec);
      return {
        execute,
        executeStreaming: (baseUrl, body, _onChunk, exec) => execute(baseUrl, body, exec),
        getHealth: async (_baseUrl, probe = {}): Promise<HealthOutcome> => {
          const outcome = await fetchAgentCard(cardFetch, cardUrl, { timeoutMs: probe.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS, ...(probe.signal ? { signal: probe.signal } : {}) });
          if (!outcome.ok) return { ok: false, kind: outcome.kind, message: outcome.message, ...(outcome.status === undefined ? {} : { status: outcome.status }), durationMs: outcome.durationMs };
          return { ok: true, health: { status: 'healthy', timestamp: Math.floor(Date.now() / 1000) }, healthy: true, status: outcome.status, durationMs: outcome.durationMs };
        },
      };
    },
  };
}

type Body = Parameters<AgentClient['execute']>[1];
type Exec = NonNullable<Parameters<AgentClient['execute']>[2]>;

async function sendMessage(fetch: GuardedFetch, endpoint: string, body: Body, exec: Exec): Promise<ExecuteOutcome> {
  const started = performance.now();
  const timeoutMs = exec.timeoutMs ?? body.metadata.timeout;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = exec.signal === undefined ? deadline : AbortSignal.any([exec.signal, deadline]);
  const fail = (kind: AgentCallFailure['kind'], message: string, status?: number): AgentCallFailure => ({
    ok: false,
    kind,
    message,
    ...(status === undefined ? {} : { status }),
    durationMs: performance.now() - started,
  });
  const context = body.input.context;
  const parts: unknown[] = [{ kind: 'text', text: body.input.prompt }];
  if (Object.keys(context).length > 0) parts.push({ kind: 'data', data: context });
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (exec.traceparent !== undefined) headers.traceparent = exec.traceparent;
  const rpc = async (method: string, params: unknown): Promise<{ ok: true; result: unknown } | AgentCallFailure> => {
    try {
      const res = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }), signal });
      const text = await res.text();
      if (res.status < 200 || res.status > 299) return fail('http_status', `the A2A endpoint answered HTTP ${res.status}`, res.status);
      let answer: { result?: unknown; error?: { code?: unknown; message?: unknown } };
      try {
        answer = JSON.parse(text) as typeof answer;
      } catch {
        return fail('invalid_json', 'the A2A endpoint did not answer JSON', res.status);
      }
      if (typeof answer !== 'object' || answer === null) return fail('invalid_shape', 'the A2A answer is not a JSON-RPC response', res.status);
      if (answer.error !== undefined) {
        return fail('agent_error', `A2A error ${String(answer.error?.code)}: ${String(answer.error?.message).slice(0, MAX_JSON_RPC_ERROR)}`, res.status);
      }
      return { ok: true, result: answer.result };
    } catch (error) {
      if (deadline.aborted) return fail('timeout', `no answer within ${timeoutMs} ms`);
      if (exec.signal?.aborted === true) return fail('aborted', 'cancelled');
      const cause = (error as { cause?: unknown }).cause;
      if (isUrlNotAllowedError(error) || isUrlNotAllowedError(cause)) return fail('url_not_allowed', String((isUrlNotAllowedError(error) ? error : (cause as Error)).message));
      if ((error as { code?: unknown }).code === 'ERR_RESPONSE_TOO_LARGE') return fail('too_large', (error as Error).message);
      const code = (cause as { code?: unknown } | undefined)?.code;
      return fail(code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' ? 'reset' : 'refused', `the A2A endpoint could not be reached${typeof code === 'string' ? ` (${code})` : ''}`);
    }
  };
  const message = { kind: 'message', role: 'user', messageId: randomUUID(), parts, metadata: { requestId: body.metadata.requestId } };
  let answer = await rpc('message/send', { message, configuration: { blocking: true, acceptedOutputModes: ['text/plain', 'application/json'] } });
  for (let waitMs = FIRST_POLL_MS; ; waitMs = Math.min(waitMs * 2, MAX_POLL_MS)) {
    if (!answer.ok) return answer;
    const reading = readA2aResult(answer.result);
    if (reading.kind === 'answer') {
      const durationMs = performance.now() - started;
      return { ok: true, status: 200, result: reading.result, metadata: { cost: null, duration: Math.round(durationMs) }, streamed: false, durationMs };
    }
    if (reading.kind === 'failed') return fail('agent_error', reading.message);
    if (reading.kind === 'invalid') return fail('invalid_shape', reading.message);
    // Not finished though asked to block: ask again until the deadline.
    const waited = await pause(waitMs, signal);
    if (!waited) return deadline.aborted ? fail('timeout', `the A2A task was still running after ${timeoutMs} ms`) : fail('aborted', 'cancelled');
    answer = await rpc('tasks/get', { id: reading.taskId });
  }
}

function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
