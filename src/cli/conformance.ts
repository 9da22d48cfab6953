/**
 * Checks an agent against the protocol the way Baton calls it (`baton agent check URL`): the URL
 * policy, GET /health, GET /info, POST /execute (JSON and streamed), the timeout it must respect,
 * the failure body and the size limits. Every check yields a finding with what is wrong and how
 * to fix it; nothing throws. Calls go through the same client (and outbound policy) Baton uses.
 */
import { randomUUID } from 'node:crypto';
import { checkUrlSyntax } from '../domain/url-policy.js';
import { createAgentClient, DEFAULT_MAX_BYTES } from '../adapters/agent-http/client.js';
import type { AgentClient } from '../adapters/agent-http/client.js';
import type { AgentCallFailure, ExecuteOutcome, HealthSuccess } from '../ports/agent-outcomes.js';
import type { ExecuteRequest } from '../schemas/agent-protocol.js';

export const CheckStatus = { PASS: 'pass', WARN: 'warn', FAIL: 'fail', SKIP: 'skip' } as const;
export type CheckStatus = (typeof CheckStatus)[keyof typeof CheckStatus];

export interface CheckFinding {
  /** Stable name: url, health, info, execute, streaming, deadline, failure-body, request-size. */
  readonly check: string;
  readonly status: CheckStatus;
  /** What was seen, one line. */
  readonly summary: string;
  /** How to fix it; present on fail and warn. */
  readonly fix?: string;
  readonly durationMs?: number;
}

export interface CheckReport {
  readonly url: string;
  readonly ok: boolean;
  readonly findings: readonly CheckFinding[];
}

export interface CheckOptions {
  /** Lets http and loopback/private addresses through, as BATON_ALLOW_PRIVATE_URLS does for the server. */
  readonly allowPrivate: boolean;
  /** The budget sent as metadata.timeout on the ordinary execute calls. Default 30000 (Baton's default). */
  readonly timeoutMs?: number;
  /** The prompt of the ordinary execute calls. */
  readonly prompt?: string;
  /** The budget of the deadline check; the agent must answer within it. Default 1000. */
  readonly deadlineMs?: number;
  /** Injected in tests; by default a client with its own policy-enforcing dispatcher. */
  readonly client?: AgentClient;
}

export const DEFAULT_CHECK_PROMPT = 'Count the words in this sentence, please.';
/** Longest query Baton accepts, so the longest prompt an agent can receive. */
const MAX_PROMPT_CHARS = 10_000;
/** Baton accepts request bodies up to 1 MiB and forwards the context; probe close to that. */
const LARGE_CONTEXT_BYTES = 900 * 1024;
/** Allowance past the budget for the network before a late answer counts as ignoring it. */
const DEADLINE_GRACE_MS = 250;
/** How long past the budget the checker keeps listening, to tell "late" from "never". */
const DEADLINE_LISTEN_MS = 2_000;

const HEALTH_SHAPE = '200 {"status":"healthy","timestamp":<Unix seconds>}';
const INFO_SHAPE = '200 {"id","name","description","version","capabilities":[…],"pricing":{"model","basePrice"}}';
const SUCCESS_SHAPE = '200 {"result":{…an object…},"metadata":{"cost":<USD>,"duration":<ms>}}';
const FAILURE_SHAPE = 'HTTP 500 {"result":null,"metadata":{"cost":<USD>,"duration":<ms>},"error":"what went wrong"}';

/** Runs every check in order; later checks are skipped when the agent cannot be reached at all. */
export async function checkAgent(url: string, options: CheckOptions): Promise<CheckReport> {
  const findings: CheckFinding[] = [];
  const done = (): CheckReport => ({ url, ok: findings.every((f) => f.status !== 'fail'), findings });

  const syntax = checkUrlSyntax(url, { allowPrivate: options.allowPrivate });
  if (!syntax.ok) {
    findings.push({ check: 'url', status: 'fail', summary: `${syntax.message} (${syntax.reason})`, fix: urlFix(options.allowPrivate) });
    return done();
  }
  findings.push({ check: 'url', status: 'pass', summary: 'allowed by the outbound URL policy' });

  const client = options.client ?? createAgentClient({ allowPrivate: options.allowPrivate, userAgent: 'baton-agent-check/1' });
  try {
    const health = await checkHealth(client, url, options.allowPrivate);
    findings.push(health.finding);
    if (!health.reachable) {
      for (const check of ['info', 'execute', 'streaming', 'deadline', 'failure-body', 'request-size']) {
        findings.push({ check, status: 'skip', summary: 'skipped: the agent could not be reached' });
      }
      return done();
    }
    findings.push(await checkInfo(client, url, options.allowPrivate));
    const timeoutMs = options.timeoutMs ?? 30_000;
    const prompt = options.prompt ?? DEFAULT_CHECK_PROMPT;
    findings.push(await checkExecute(client, url, options.allowPrivate, prompt, timeoutMs));
    findings.push(await checkStreaming(client, url, options.allowPrivate, prompt, timeoutMs));
    findings.push(await checkDeadline(client, url, options.allowPrivate, prompt, options.deadlineMs ?? 1_000));
    findings.push(await checkFailureBody(client, url, options.allowPrivate, prompt));
    findings.push(await checkRequestSize(client, url, options.allowPrivate, timeoutMs));
    return done();
  } finally {
    if (options.client === undefined) await client.close();
  }
}

function urlFix(allowPrivate: boolean): string {
  return allowPrivate
    ? 'Use an http(s) URL without credentials; cloud metadata addresses are never allowed.'
    : 'Baton calls agents only over https at public addresses. For an agent on your machine or network, '
      + 'rerun with --allow-private (and run Baton with BATON_ALLOW_PRIVATE_URLS=true to register it).';
}

function executeBody(prompt: string, timeoutMs: number, context: Record<string, unknown> = {}): ExecuteRequest {
  return {
    input: { prompt, context },
    metadata: { requestId: `check_${randomUUID()}`, userId: 'baton-agent-check', timeout: timeoutMs },
  };
}

const ms = (value: number): string => `${Math.round(value)} ms`;

/** What to do about a failed call, by failure kind; `endpoint` is e.g. "GET /health". */
function failureFix(failure: AgentCallFailure, endpoint: string, shape: string, allowPrivate: boolean): string {
  switch (failure.kind) {
    case 'url_not_allowed':
      return urlFix(allowPrivate);
    case 'refused':
      return 'Nothing answered: check the host and port, and that the agent is running.';
    case 'reset':
      return 'The connection broke mid-answer: check TLS (a valid certificate for https) and that the server '
        + 'does not close the connection before the whole answer is sent.';
    case 'timeout':
      return `Answer ${endpoint} sooner; Baton gives up on it at the deadline.`;
    case 'http_status':
      return `Serve ${endpoint} under the registered URL (a path prefix is kept: https://host/p → https://host/p${endpoint.split(' ')[1] ?? ''}) and answer ${shape}.`;
    case 'invalid_json':
      return `Answer with Content-Type application/json and a JSON body: ${shape}.`;
    case 'invalid_shape':
      return `Answer exactly ${shape}; extra fields are ignored, missing or wrongly typed ones are not.`;
    case 'too_large':
      return `Keep every answer under ${DEFAULT_MAX_BYTES} bytes (1 MiB); Baton stops reading there and counts a failure.`;
    case 'agent_error':
      return `The agent reported a failure; if the test prompt is not one it handles, pass one with --prompt.`;
    case 'aborted':
      return 'The check was interrupted; run it again.';
  }
}

function failed(check: string, failure: AgentCallFailure, endpoint: string, shape: string, allowPrivate: boolean): CheckFinding {
  const status = failure.status === undefined ? '' : ` (HTTP ${failure.status})`;
  return {
    check,
    status: 'fail',
    summary: `${endpoint}: ${failure.message}${failure.message.includes('HTTP') ? '' : status}`,
    fix: failureFix(failure, endpoint, shape, allowPrivate),
    durationMs: failure.durationMs,
  };
}

/** The health finding, and whether anything answered at all (the other checks need that). */
async function checkHealth(client: AgentClient, url: string, allowPrivate: boolean): Promise<{ finding: CheckFinding; reachable: boolean }> {
  const outcome = await client.getHealth(url);
  if (!outcome.ok) {
    const reachable = !(outcome.kind === 'refused' || outcome.kind === 'url_not_allowed' || outcome.kind === 'reset');
    return { finding: failed('health', outcome, 'GET /health', HEALTH_SHAPE, allowPrivate), reachable };
  }
  return { finding: healthFinding(outcome), reachable: true };
}

function healthFinding(outcome: HealthSuccess): CheckFinding {
  if (!outcome.healthy) {
    return {
      check: 'health',
      status: 'fail',
      summary: `GET /health answered HTTP ${outcome.status} with status "${outcome.health.status}"`,
      fix: `Answer ${HEALTH_SHAPE} while the agent can work; anything else takes it out of selection.`,
      durationMs: outcome.durationMs,
    };
  }
  const now = Date.now() / 1000;
  if (Math.abs(outcome.health.timestamp - now) > 300) {
    const looksMs = outcome.health.timestamp > now * 100;
    return {
      check: 'health',
      status: 'warn',
      summary: `healthy, but timestamp ${outcome.health.timestamp} is more than 5 minutes from now`,
      fix: looksMs ? 'timestamp is in Unix seconds, not milliseconds: Math.floor(Date.now() / 1000).' : 'Send the current time in Unix seconds.',
      durationMs: outcome.durationMs,
    };
  }
  return { check: 'health', status: 'pass', summary: `healthy in ${ms(outcome.durationMs)}`, durationMs: outcome.durationMs };
}

async function checkInfo(client: AgentClient, url: string, allowPrivate: boolean): Promise<CheckFinding> {
  const outcome = await client.getInfo(url);
  if (!outcome.ok) return failed('info', outcome, 'GET /info', INFO_SHAPE, allowPrivate);
  const info = outcome.info;
  if (info.description.trim().length < 20) {
    return {
      check: 'info',
      status: 'warn',
      summary: `"${info.id}" answers, but its description is ${info.description.trim().length} characters`,
      fix: 'Describe what the agent does in a sentence or two: selection reads the description.',
      durationMs: outcome.durationMs,
    };
  }
  return {
    check: 'info',
    status: 'pass',
    summary: `"${info.id}" ${info.version}, ${info.capabilities.length} capabilities, ${info.pricing.model} $${info.pricing.basePrice}`,
    durationMs: outcome.durationMs,
  };
}

async function checkExecute(client: AgentClient, url: string, allowPrivate: boolean, prompt: string, timeoutMs: number): Promise<CheckFinding> {
  const outcome = await client.execute(url, executeBody(prompt, timeoutMs));
  if (!outcome.ok) return failed('execute', outcome, 'POST /execute', SUCCESS_SHAPE, allowPrivate);
  return {
    check: 'execute',
    status: 'pass',
    summary: `answered in ${ms(outcome.durationMs)}, cost $${outcome.metadata.cost}, result keys: ${Object.keys(outcome.result).slice(0, 8).join(', ') || '(none)'}`,
    durationMs: outcome.durationMs,
  };
}

async function checkStreaming(client: AgentClient, url: string, allowPrivate: boolean, prompt: string, timeoutMs: number): Promise<CheckFinding> {
  let chunks = 0;
  const outcome = await client.executeStreaming(url, executeBody(prompt, timeoutMs), () => {
    chunks += 1;
  });
  if (!outcome.ok) {
    const finding = failed('streaming', outcome, 'POST /execute (Accept: text/event-stream)', SUCCESS_SHAPE, allowPrivate);
    if (outcome.kind !== 'invalid_shape' && outcome.kind !== 'invalid_json') return finding;
    return {
      ...finding,
      fix: 'A streamed answer is `data: {"chunk":"…"}` events followed by one event holding the ordinary success '
        + 'or failure body; or answer application/json when you do not stream.',
    };
  }
  if (!outcome.streamed) {
    return { check: 'streaming', status: 'pass', summary: 'answers JSON when a stream is accepted (streaming is optional)', durationMs: outcome.durationMs };
  }
  return { check: 'streaming', status: 'pass', summary: `streamed ${chunks} chunks and a final result`, durationMs: outcome.durationMs };
}

/**
 * The agent gets a short budget and must answer (success or failure) within it: Baton hangs up
 * at the budget, so a later answer is lost work. The checker keeps listening a little longer to
 * tell an agent that answers late from one that ignores the budget altogether.
 */
async function checkDeadline(client: AgentClient, url: string, allowPrivate: boolean, prompt: string, budgetMs: number): Promise<CheckFinding> {
  const outcome = await client.execute(url, executeBody(prompt, budgetMs), { timeoutMs: budgetMs + DEADLINE_LISTEN_MS });
  const fix = 'Read metadata.timeout (milliseconds) and stop working when it passes, answering the failure body: '
    + 'e.g. AbortSignal.timeout(metadata.timeout) passed to your model call (see examples/agent/server.ts).';
  if (!outcome.ok && outcome.kind === 'timeout') {
    return {
      check: 'deadline',
      status: 'fail',
      summary: `no answer ${ms(budgetMs + DEADLINE_LISTEN_MS)} after a ${ms(budgetMs)} budget; Baton would have hung up at ${ms(budgetMs)}`,
      fix,
      durationMs: outcome.durationMs,
    };
  }
  if (outcome.durationMs > budgetMs + DEADLINE_GRACE_MS) {
    return {
      check: 'deadline',
      status: 'fail',
      summary: `answered after ${ms(outcome.durationMs)}, past its ${ms(budgetMs)} budget; Baton would have counted a timeout`,
      fix,
      durationMs: outcome.durationMs,
    };
  }
  if (!outcome.ok && outcome.kind !== 'agent_error') {
    return failed('deadline', outcome, 'POST /execute', FAILURE_SHAPE, allowPrivate);
  }
  return {
    check: 'deadline',
    status: 'pass',
    summary: `answered within its ${ms(budgetMs)} budget (${outcome.ok ? 'result' : 'failure body'} in ${ms(outcome.durationMs)})`,
    durationMs: outcome.durationMs,
  };
}

/**
 * A call whose budget is already spent (Baton sends what is left after queueing, down to 1 ms)
 * is the one failure every agent can be led into; its answer shows whether failures arrive in
 * the protocol's failure body, which is what carries the error message and the cost to Baton.
 */
async function checkFailureBody(client: AgentClient, url: string, allowPrivate: boolean, prompt: string): Promise<CheckFinding> {
  const outcome: ExecuteOutcome = await client.execute(url, executeBody(prompt, 1), { timeoutMs: DEADLINE_LISTEN_MS });
  if (outcome.ok) {
    return {
      check: 'failure-body',
      status: 'skip',
      summary: 'not observed: the agent succeeded even with a 1 ms budget',
      durationMs: outcome.durationMs,
    };
  }
  if (outcome.kind === 'agent_error') {
    return { check: 'failure-body', status: 'pass', summary: `failure reported as the protocol body: "${outcome.message}"`, durationMs: outcome.durationMs };
  }
  const finding = failed('failure-body', outcome, 'POST /execute with a 1 ms budget', FAILURE_SHAPE, allowPrivate);
  if (outcome.kind === 'timeout') return { ...finding, fix: `Stop at metadata.timeout and answer ${FAILURE_SHAPE}.` };
  return {
    ...finding,
    fix: `Answer every failure as ${FAILURE_SHAPE}; otherwise Baton sees only the status and loses the error message and the cost.`,
  };
}

/** The largest request Baton forwards: a maximal prompt and a context near the body cap. */
async function checkRequestSize(client: AgentClient, url: string, allowPrivate: boolean, timeoutMs: number): Promise<CheckFinding> {
  const prompt = 'word '.repeat(MAX_PROMPT_CHARS / 5).trimEnd();
  const context = { document: 'x'.repeat(LARGE_CONTEXT_BYTES) };
  const outcome = await client.execute(url, executeBody(prompt, timeoutMs, context));
  const size = `${Math.round((LARGE_CONTEXT_BYTES + MAX_PROMPT_CHARS) / 1024)} KiB`;
  if (outcome.ok) {
    return { check: 'request-size', status: 'pass', summary: `accepted a ${size} request`, durationMs: outcome.durationMs };
  }
  const fix = `Accept request bodies up to 1 MiB: Baton forwards prompts up to ${MAX_PROMPT_CHARS} characters and the caller's context.`;
  if (outcome.status === 413 || outcome.kind === 'reset') {
    return { check: 'request-size', status: 'fail', summary: `refused a ${size} request: ${outcome.message}`, fix, durationMs: outcome.durationMs };
  }
  if (outcome.kind === 'agent_error') {
    return {
      check: 'request-size',
      status: 'warn',
      summary: `a ${size} request was answered with a failure: "${outcome.message}"`,
      fix,
      durationMs: outcome.durationMs,
    };
  }
  return failed('request-size', outcome, `POST /execute (${size})`, SUCCESS_SHAPE, allowPrivate);
}
