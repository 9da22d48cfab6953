/**
 * A fake of the AgentCalls port (src/actors/agent-protocol.ts) for in-process run-actor tests:
 * each agent answers by a script, every call is recorded as the agent would receive it, and a
 * call whose signal aborts resolves `aborted` as the agent client does.
 */
import type { AgentCall, AgentCallOutcome, AgentCalls } from '../../src/actors/agent-protocol.js';

/** How an agent answers one call; an array scripts successive calls (the last one repeats). */
export type AgentScript = (call: AgentCall) => AgentCallOutcome | Promise<AgentCallOutcome>;

export interface ReceivedCall {
  readonly agentId: string;
  readonly prompt: string;
  readonly context: Readonly<Record<string, unknown>>;
}

/** A success with `result`, reporting `costUsd`. */
export function answer(result: Readonly<Record<string, unknown>>, costUsd = 0.001): AgentCallOutcome {
  return { ok: true, status: 200, result, metadata: { cost: costUsd, duration: 5 }, streamed: false, durationMs: 5 };
}

/** A failure of `kind` (timeout, agent_error, …), as the agent client reports it. */
export function failure(kind: 'timeout' | 'agent_error' | 'refused' | 'reset', message = `${kind} in test`): AgentCallOutcome {
  return { ok: false, kind, message, durationMs: 5 };
}

/** A call that never answers by itself (only its signal ends it). */
export const neverAnswers: AgentScript = () => new Promise<AgentCallOutcome>(() => undefined);

export class ScriptedAgents implements AgentCalls {
  readonly calls: ReceivedCall[] = [];
  readonly #scripts: Map<string, AgentScript[]>;
  readonly #counts = new Map<string, number>();

  constructor(scripts: Readonly<Record<string, AgentScript | readonly AgentScript[]>>) {
    this.#scripts = new Map(Object.entries(scripts).map(([id, s]) => [id, Array.isArray(s) ? [...s] : [s as AgentScript]]));
  }

  /** Ids of the agents called, in call order. */
  get called(): string[] {
    return this.calls.map((c) => c.agentId);
  }

  visible(): undefined {
    return undefined;
  }

  execute(_accountId: string | null, agentId: string, call: AgentCall): Promise<AgentCallOutcome> {
    this.calls.push({ agentId, prompt: call.prompt, context: call.context });
    const scripts = this.#scripts.get(agentId);
    if (scripts === undefined) {
      return Promise.resolve({ ok: false, kind: 'stopped', message: `no agent '${agentId}'`, durationMs: 0, rejected: true });
    }
    const n = this.#counts.get(agentId) ?? 0;
    this.#counts.set(agentId, n + 1);
    const script = scripts[Math.min(n, scripts.length - 1)]!;
    const aborted: AgentCallOutcome = { ok: false, kind: 'aborted', message: 'the caller aborted the call', durationMs: 0 };
    if (call.signal?.aborted === true) return Promise.resolve(aborted);
    return new Promise<AgentCallOutcome>((resolve) => {
      call.signal?.addEventListener('abort', () => resolve(aborted), { once: true });
      Promise.resolve(script(call)).then(resolve);
    });
  }
}
