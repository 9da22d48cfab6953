/**
 * WorkflowRunActor: one per workflow run, the agent loop of DESIGN §8. For each step it calls the
 * step's agent with the task (and the previous step's answer) as `input.prompt` and `{ tools,
 * history, toolResults }` as `input.context`. `{ toolCalls }` runs those tools in order (a
 * high-risk one first waits for an approval, held by an ApprovalActor child) and calls the agent
 * again; `{ answer }` ends the step. maxSteps bounds the agent rounds of the whole run.
 *
 * Agent and tool calls run outside the actor's turn and report back as messages, so a cancel or a
 * decision is never stuck behind a slow call. Terminal writes are conditional: whichever of
 * finish, failure and cancel records first emits `done`; the others change nothing. When paused
 * on an approval the run writes a checkpoint, from which any worker can resume it.
 *
 * Concurrency (docs/limits.md): a run holds one of its account's slots while it works, gives it
 * up while paused on an approval (a person may take hours; other executions should run
 * meanwhile) and takes one again to apply the decision; when the account is at its limit it
 * waits in the queue (phase 'queued') until the queue's starter sends `slotGranted`.
 */
import type { AgentCalls } from './agent-protocol.js';
import type { Metrics } from '../support/metrics/index.js';
import type { ApprovalStore } from '../ports/approvals.js';
import type { HistoryEntry, RunCheckpoint, ToolCall, ToolResultEntry, WorkflowRunRecord, WorkflowStep, WorkflowTool } from '../domain/workflows.js';
import type { WorkflowRunStore } from '../ports/workflow-runs.js';
import { WORKFLOW_DEFAULTS } from '../domain/workflows.js';
import { createRunEmitter, WorkflowEvent, type EventAppender, type RunEmitter } from '../logic/workflow-events.js';
import type { Concurrency } from '../ports/limits.js';
import type { ToolCaller } from '../ports/tools.js';
import { newId } from '../domain/ids.js';
import { agentCallErrorCode, RunErrorCode, type CatalogueCode } from '../domain/errors.js';
import type { McpToolset } from '../domain/workflows.js';
import type { ToolOutcome } from '../ports/tools.js';
import type { McpCaller } from '../ports/mcp.js';
import { findMcpTool, mcpToolsetOf } from '../logic/mcp-toolset.js';
import type { AgentCallOutcome } from './agent-protocol.js';
import { approvalActor } from './approval-actor.js';
import { defineActor, dispatch, reply, spawnActor, stop, type ActorKit, type KitLogger, type Ref, type ReplyRef } from './kit/index.js';
import type { ApprovalDecision, ApprovalMessage, DecisionApplied, RunCancelReply, WorkflowRunMessage } from './workflow-run-protocol.js';
import { endApprovalSpan, endRunSpan, endToolSpan, startApprovalSpan, startToolSpan, traceparentOf, type Span } from '../support/telemetry/index.js';

export interface WorkflowRunDeps {
  readonly directory: Pick<AgentCalls, 'execute'>;
  readonly runs: Pick<WorkflowRunStore, 'transition' | 'saveCheckpoint'>;
  readonly approvals: Pick<ApprovalStore, 'create' | 'decide' | 'getById' | 'cancelPending'>;
  readonly events: EventAppender;
  readonly tools: ToolCaller;
  /** Calls steps' MCP servers. Absent: their tools are unavailable (tests without MCP). */
  readonly mcp?: McpCaller;
  readonly metrics: Pick<Metrics, 'approvalRequested' | 'approvalDecided'>;
  readonly logger: KitLogger;
  /** Told when an approval starts or stops waiting (for the pending gauge). */
  readonly onApprovalPending?: (delta: 1 | -1) => void;
  /** Called once the actor has stopped, whatever the reason. */
  readonly onStopped?: (executionId: string) => void;
  /** Concurrency slots. Absent: runs take none (tests that do not involve concurrency). */
  readonly slots?: Pick<Concurrency, 'acquire' | 'release' | 'state'>;
  /** Told when the run takes (true) or gives up (false) its slot, so its lease is renewed. */
  readonly onHolding?: (executionId: string, accountId: string, holding: boolean) => void;
}

type Phase = 'idle' | 'queued' | 'listing' | 'agent' | 'tools' | 'approval' | 'done';

/** What a run waiting for a slot does once it has one. */
type Continuation =
  | { readonly kind: 'start' }
  | { readonly kind: 'decision'; readonly approvalId: string; readonly decision: ApprovalDecision; readonly reason: string | null };

/** Between attempts to take a slot when the queue was full or the store failed. */
const SLOT_RETRY_MS = 1_000;

interface PendingApproval {
  readonly id: string;
  readonly requestedAtMs: number;
  readonly child: Ref<ApprovalMessage> | null;
}

interface State {
  record: WorkflowRunRecord;
  phase: Phase;
  stepIndex: number;
  rounds: number;
  previousAnswer: string | null;
  history: HistoryEntry[];
  /** The current round's calls (for history), the ones still to run, and results so far. */
  roundCalls: ToolCall[];
  pendingCalls: ToolCall[];
  toolResults: ToolResultEntry[];
  approval: PendingApproval | null;
  /** What the current step's MCP servers listed; null until listed (listed once per step). */
  mcpToolset: McpToolset | null;
  /** Holds a concurrency slot now. */
  holding: boolean;
  /** Set in phase 'queued': what to do once a slot is granted. */
  waiting: Continuation | null;
  readonly abort: AbortController;
  readonly emitter: RunEmitter;
  /** The run's trace span and the open approval wait's (docs/observability.md); null while tracing is off. */
  readonly span: Span | null;
  approvalSpan: Span | null;
}

type Kit = ActorKit<WorkflowRunMessage>;

export function workflowRunActor(deps: WorkflowRunDeps, initial: WorkflowRunRecord, span: Span | null = null) {
  return defineActor<State, WorkflowRunMessage>({
    init: () => ({
      record: initial,
      phase: 'idle',
      stepIndex: 0,
      rounds: 0,
      previousAnswer: null,
      history: [],
      roundCalls: [],
      pendingCalls: [],
      toolResults: [],
      approval: null,
      mcpToolset: null,
      holding: false,
      waiting: null,
      abort: new AbortController(),
      emitter: createRunEmitter(deps.events, initial.id, initial.checkpoint?.lastSeq ?? 0, deps.logger),
      span,
      approvalSpan: null,
    }),
    handle: async (state, msg, kit) => {
      switch (msg.type) {
        case 'workflowRun.start':
          if (state.phase !== 'idle') return state;
          if (msg.queued) {
            // The service took a queue place for it: nothing runs until the queue promotes it.
            state.phase = 'queued';
            state.waiting = { kind: 'start' };
          } else {
            // The service took the slot before recording the run.
            holdSlot(state, deps, true);
            callAgent(state, deps, kit);
          }
          return state;
        case 'workflowRun.slotGranted':
          if (state.phase === 'queued' && state.waiting !== null) {
            const next = state.waiting;
            state.waiting = null;
            holdSlot(state, deps, true);
            await proceed(state, deps, kit, next);
          }
          return state;
        case 'workflowRun.retrySlot':
          if (state.phase === 'queued' && state.waiting !== null) await takeSlot(state, deps, kit, state.waiting);
          return state;
        case 'workflowRun.resume':
          if (state.phase === 'idle') await resume(state, deps, kit);
          return state;
        case 'workflowRun.mcpListed':
          if (state.phase === 'listing' && msg.stepIndex === state.stepIndex) {
            state.mcpToolset = msg.toolset;
            callAgent(state, deps, kit);
          }
          return state;
        case 'workflowRun.agentDone':
          if (state.phase === 'agent' && msg.round === state.rounds) await agentDone(state, deps, kit, msg.outcome, msg.chunks);
          return state;
        case 'workflowRun.toolDone':
          if (state.phase === 'tools' && state.pendingCalls[0]?.id === msg.callId) await toolDone(state, deps, kit, msg.entry);
          return state;
        case 'workflowRun.decision':
          await decisionRecorded(state, deps, kit, msg.approvalId, msg.replyTo);
          return state;
        case 'workflowRun.approvalResolved':
          await resolveApproval(state, deps, kit, msg.approvalId, msg.decision, msg.reason);
          return state;
        case 'workflowRun.cancel':
          await cancel(state, deps, kit, msg.replyTo);
          return state;
      }
    },
    afterStop: (state) => {
      endApprovalSpan(state.approvalSpan, 'stopped');
      endRunSpan(state.span, state.record.id, state.record.status, state.record.error);
      state.abort.abort();
      if (state.approval !== null) deps.onApprovalPending?.(-1);
      // Ended: the slot (or queue place) goes to the next execution. Stopped for a shutdown
      // instead: the queue place is kept for whoever takes the run over, and a held slot's lease
      // lapses and is reclaimed.
      if (state.phase === 'done') deps.slots?.release(state.record.accountId, state.record.id);
      if (state.holding) deps.onHolding?.(state.record.id, state.record.accountId, false);
      deps.onStopped?.(state.record.id);
    },
  });
}

function holdSlot(state: State, deps: WorkflowRunDeps, holding: boolean): void {
  if (deps.slots === undefined || state.holding === holding) return;
  state.holding = holding;
  deps.onHolding?.(state.record.id, state.record.accountId, holding);
}

/**
 * Takes a slot, then does `next`; when the account is at its limit the run waits in phase
 * 'queued' (its checkpoint stays, so a takeover resumes it) until `slotGranted`.
 */
async function continueWithSlot(state: State, deps: WorkflowRunDeps, kit: Kit, next: Continuation): Promise<void> {
  if (deps.slots === undefined || state.holding) {
    await proceed(state, deps, kit, next);
    return;
  }
  state.phase = 'queued';
  state.waiting = next;
  await takeSlot(state, deps, kit, next);
}

async function takeSlot(state: State, deps: WorkflowRunDeps, kit: Kit, next: Continuation): Promise<void> {
  const slots = deps.slots;
  if (slots === undefined) return;
  let status: 'started' | 'queued' | 'full' | 'error';
  try {
    status = (await slots.acquire(state.record.accountId, state.record.id)).status;
  } catch (error) {
    deps.logger.warn({ err: error, executionId: state.record.id }, 'taking a concurrency slot failed; retrying');
    status = 'error';
  }
  if (status === 'queued') return;
  if (status === 'started') {
    state.waiting = null;
    holdSlot(state, deps, true);
    await proceed(state, deps, kit, next);
    return;
  }
  // The run was accepted long ago: a full queue (or a store outage) delays it, never refuses it.
  kit.timers.start('slot', SLOT_RETRY_MS, (timer) => ({ type: 'workflowRun.retrySlot', timer }));
}

async function proceed(state: State, deps: WorkflowRunDeps, kit: Kit, next: Continuation): Promise<void> {
  if (next.kind === 'start') {
    callAgent(state, deps, kit);
    return;
  }
  await applyDecision(state, deps, kit, next.approvalId, next.decision, next.reason);
}

function stepOf(state: State): WorkflowStep {
  return state.record.workflow.steps[state.stepIndex]!;
}

function toolOf(state: State, name: string): WorkflowTool | undefined {
  return (stepOf(state).tools ?? []).find((t) => t.name === name);
}

/** A tool an agent's call names, HTTP or MCP, ready to run; or why it cannot run. */
type RunnableTool =
  | { readonly kind: 'tool'; readonly risk: 'low' | 'medium' | 'high'; readonly url: string; readonly invoke: (input: Readonly<Record<string, unknown>>, signal: AbortSignal, traceparent?: string) => Promise<ToolOutcome> }
  | { readonly kind: 'error'; readonly error: string };

function runnableTool(state: State, deps: WorkflowRunDeps, name: string): RunnableTool {
  const http = toolOf(state, name);
  if (http !== undefined) return { kind: 'tool', risk: http.risk, url: http.url, invoke: (input, signal, tp) => deps.tools.call(http, input, signal, tp) };
  const mcp = findMcpTool(stepOf(state), state.mcpToolset, name);
  if (mcp === undefined) return { kind: 'error', error: `unknown tool '${name}'` };
  if (mcp.kind === 'unavailable') return { kind: 'error', error: mcp.error };
  const { server, tool } = mcp;
  const caller = deps.mcp;
  if (caller === undefined) return { kind: 'error', error: 'MCP tools are not available on this worker' };
  return { kind: 'tool', risk: tool.risk, url: server.url, invoke: (input, signal, tp) => caller.call(server, tool.tool, input, signal, tp) };
}

/** Lists the step's MCP servers (outside the actor's turn), then calls the agent with their tools. */
function listMcpTools(state: State, deps: WorkflowRunDeps, kit: Kit): void {
  state.phase = 'listing';
  const stepIndex = state.stepIndex;
  const servers = stepOf(state).mcpServers ?? [];
  const self = kit.self;
  const caller = deps.mcp;
  const signal = state.abort.signal;
  void Promise.all(
    servers.map((server) => (caller === undefined ? Promise.resolve({ ok: false as const, error: 'MCP tools are not available on this worker' }) : caller.list(server, signal))),
  ).then((listings) => {
    for (const [i, listing] of listings.entries()) {
      if (!listing.ok) deps.logger.warn({ executionId: state.record.id, server: servers[i]!.name, error: listing.error }, 'listing an MCP server failed');
    }
    dispatch(self, { type: 'workflowRun.mcpListed', stepIndex, toolset: mcpToolsetOf(servers, listings) });
  });
}

function promptOf(state: State): string {
  if (state.previousAnswer === null) return state.record.task;
  return `${state.record.task}\n\nAnswer of the previous step:\n${state.previousAnswer}`;
}

function callAgent(state: State, deps: WorkflowRunDeps, kit: Kit): void {
  const maxSteps = state.record.workflow.maxSteps ?? WORKFLOW_DEFAULTS.maxSteps;
  if (state.rounds >= maxSteps) {
    void fail(state, deps, kit, RunErrorCode.MAX_STEPS_EXCEEDED, `The workflow made ${maxSteps} agent calls (maxSteps) without finishing`);
    return;
  }
  const step = stepOf(state);
  if (state.mcpToolset === null && (step.mcpServers ?? []).length > 0) {
    listMcpTools(state, deps, kit);
    return;
  }
  state.rounds += 1;
  state.phase = 'agent';
  const round = state.rounds;
  const self = kit.self;
  const tools = [
    ...(step.tools ?? []).map((t) => ({
      name: t.name,
      description: t.description ?? '',
      inputSchema: t.inputSchema ?? { type: 'object' },
      risk: t.risk,
    })),
    ...(state.mcpToolset?.tools ?? []).map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, risk: t.risk })),
  ];
  // Counted outside the actor's turn (the client calls it); only read back through agentDone.
  let chunks = 0;
  void deps.directory
    .execute(state.record.accountId, step.agent, {
      prompt: promptOf(state),
      context: {
        tools,
        history: state.history,
        toolResults: state.toolResults,
        step: { id: step.id, index: state.stepIndex },
        ...(state.previousAnswer === null ? {} : { previousAnswer: state.previousAnswer }),
      },
      requestId: state.record.id,
      userId: state.record.accountId,
      signal: state.abort.signal,
      traceparent: traceparentOf(state.span),
      onChunk: (text) => {
        chunks += 1;
        void state.emitter.emit(WorkflowEvent.CHUNK, { content: text, step_id: step.id });
      },
    })
    .then(
      (outcome) => dispatch(self, { type: 'workflowRun.agentDone', round, outcome, chunks }),
      (error: unknown) =>
        dispatch(self, {
          type: 'workflowRun.agentDone',
          round,
          chunks,
          outcome: { ok: false, kind: 'aborted', message: `call failed: ${String(error)}`, durationMs: 0 },
        }),
    );
}

type AgentReply = { readonly kind: 'tools'; readonly calls: ToolCall[] } | { readonly kind: 'answer'; readonly answer: string } | { readonly kind: 'invalid'; readonly why: string };

/** What the agent asked for: tool calls, a final answer, or nothing usable. */
function readReply(result: Readonly<Record<string, unknown>>): AgentReply {
  const toolCalls = result.toolCalls;
  if (Array.isArray(toolCalls) && toolCalls.length > 0) {
    const calls: ToolCall[] = [];
    for (const [i, raw] of toolCalls.entries()) {
      if (typeof raw !== 'object' || raw === null) return { kind: 'invalid', why: `toolCalls[${i}] is not an object` };
      const { id, name, input } = raw as Record<string, unknown>;
      if (typeof name !== 'string' || name === '') return { kind: 'invalid', why: `toolCalls[${i}].name must be a string` };
      const args = input === undefined ? {} : input;
      if (typeof args !== 'object' || args === null || Array.isArray(args)) return { kind: 'invalid', why: `toolCalls[${i}].input must be an object` };
      calls.push({ id: typeof id === 'string' && id !== '' ? id : `call_${i + 1}`, name, input: args as Record<string, unknown> });
    }
    return { kind: 'tools', calls };
  }
  if (typeof result.answer === 'string') return { kind: 'answer', answer: result.answer };
  return { kind: 'invalid', why: 'the result has neither toolCalls nor an answer string' };
}

async function agentDone(state: State, deps: WorkflowRunDeps, kit: Kit, outcome: AgentCallOutcome, chunks: number): Promise<void> {
  if (!outcome.ok) {
    const code = agentCallErrorCode(outcome.kind, 'workflow');
    await fail(state, deps, kit, code, `Agent '${stepOf(state).agent}' failed: ${outcome.message}`);
    return;
  }
  const parsed = readReply(outcome.result);
  if (parsed.kind === 'invalid') {
    await fail(state, deps, kit, RunErrorCode.AGENT_INVALID_RESULT, `Agent '${stepOf(state).agent}' answered something unusable: ${parsed.why}`);
    return;
  }
  if (parsed.kind === 'tools') {
    state.phase = 'tools';
    state.roundCalls = parsed.calls;
    state.pendingCalls = [...parsed.calls];
    state.toolResults = [];
    await nextTool(state, deps, kit);
    return;
  }
  const step = stepOf(state);
  // A streamed answer already went out chunk by chunk.
  if (chunks === 0 && parsed.answer !== '') await state.emitter.emit(WorkflowEvent.CHUNK, { content: parsed.answer, step_id: step.id });
  state.previousAnswer = parsed.answer;
  state.history = [];
  state.toolResults = [];
  state.mcpToolset = null;
  state.stepIndex += 1;
  if (state.stepIndex >= state.record.workflow.steps.length) {
    await complete(state, deps, kit, parsed.answer);
    return;
  }
  callAgent(state, deps, kit);
}

/** Runs the next tool call of the round, or calls the agent again once none is left. */
async function nextTool(state: State, deps: WorkflowRunDeps, kit: Kit): Promise<void> {
  for (;;) {
    const call = state.pendingCalls[0];
    if (call === undefined) {
      state.history.push({ stepId: stepOf(state).id, toolCalls: state.roundCalls, toolResults: state.toolResults });
      callAgent(state, deps, kit);
      return;
    }
    const tool = runnableTool(state, deps, call.name);
    if (tool.kind === 'error') {
      state.pendingCalls.shift();
      state.toolResults.push({ id: call.id, name: call.name, error: tool.error });
      continue;
    }
    if (tool.risk === 'high') {
      await requestApproval(state, deps, kit, call);
      return;
    }
    await runTool(state, deps, kit, call, tool);
    return;
  }
}

async function runTool(state: State, deps: WorkflowRunDeps, kit: Kit, call: ToolCall, tool: Extract<RunnableTool, { kind: 'tool' }>): Promise<void> {
  state.phase = 'tools';
  await state.emitter.emit(WorkflowEvent.TOOL_EXECUTING, { tool_name: call.name, tool_input: call.input, tool_call_id: call.id, step_id: stepOf(state).id });
  const self = kit.self;
  const span = startToolSpan(call.name, call.id, tool.url, state.span);
  void tool.invoke(call.input, state.abort.signal, traceparentOf(span)).then((outcome) => {
    endToolSpan(span, outcome.ok ? null : outcome.error);
    const entry: ToolResultEntry = outcome.ok ? { id: call.id, name: call.name, result: outcome.result } : { id: call.id, name: call.name, error: outcome.error };
    dispatch(self, { type: 'workflowRun.toolDone', callId: call.id, entry });
  });
}

async function toolDone(state: State, deps: WorkflowRunDeps, kit: Kit, entry: ToolResultEntry): Promise<void> {
  state.pendingCalls.shift();
  state.toolResults.push(entry);
  const data: Record<string, unknown> = { tool_name: entry.name, tool_call_id: entry.id, step_id: stepOf(state).id };
  if ('error' in entry) Object.assign(data, { result: null, error: entry.error });
  else data.result = entry.result;
  await state.emitter.emit(WorkflowEvent.TOOL_RESULT, data);
  await nextTool(state, deps, kit);
}

async function requestApproval(state: State, deps: WorkflowRunDeps, kit: Kit, call: ToolCall): Promise<void> {
  state.phase = 'approval';
  const timeoutMs = state.record.workflow.approvalTimeoutMs ?? WORKFLOW_DEFAULTS.approvalTimeoutMs;
  const nowMs = kit.clock.now();
  const approval = await deps.approvals.create({
    id: newId('apr_'),
    executionId: state.record.id,
    accountId: state.record.accountId,
    workflowSlug: state.record.workflow.slug,
    toolCall: call,
    requestedAt: new Date(nowMs),
    expiresAt: new Date(nowMs + timeoutMs),
  });
  await state.emitter.emit(WorkflowEvent.APPROVAL_REQUEST, {
    approval_id: approval.id,
    tool_name: call.name,
    tool_input: call.input,
    tool_call_id: call.id,
    expires_at: approval.expiresAt.toISOString(),
  });
  await deps.runs.saveCheckpoint(state.record.id, checkpointOf(state, approval.id));
  // Paused: nothing runs until someone decides, so the slot goes to another execution.
  if (state.holding) {
    holdSlot(state, deps, false);
    deps.slots?.release(state.record.accountId, state.record.id);
  }
  deps.metrics.approvalRequested();
  deps.onApprovalPending?.(1);
  state.approval = { id: approval.id, requestedAtMs: nowMs, child: null };
  state.approvalSpan = startApprovalSpan(approval.id, call.name, state.span);
  armApproval(state, deps, kit, approval.id, approval.expiresAt.getTime());
}

function checkpointOf(state: State, approvalId: string): RunCheckpoint {
  return {
    stepIndex: state.stepIndex,
    rounds: state.rounds,
    previousAnswer: state.previousAnswer,
    history: state.history,
    toolResults: state.toolResults,
    pendingCalls: state.pendingCalls,
    roundCalls: state.roundCalls,
    approvalId,
    ...(state.mcpToolset === null ? {} : { mcpToolset: state.mcpToolset }),
    lastSeq: state.emitter.lastSeq,
  };
}

function armApproval(state: State, deps: WorkflowRunDeps, kit: Kit, approvalId: string, expiresAtMs: number): void {
  const child = spawnActor(kit.self, approvalActor(deps, { approvalId, expiresAtMs, run: kit.self }), { name: approvalId, clock: kit.clock });
  state.approval = { id: approvalId, requestedAtMs: state.approval?.requestedAtMs ?? kit.clock.now(), child };
}

/** Picks the run up from its checkpoint: re-arms the approval's timer, or applies a decision made meanwhile. */
async function resume(state: State, deps: WorkflowRunDeps, kit: Kit): Promise<void> {
  const checkpoint = state.record.checkpoint;
  if (checkpoint === null && deps.slots !== undefined && (await deps.slots.state(state.record.accountId, state.record.id)) === 'queued') {
    // Queued before it ever started (its owner went away meanwhile): it keeps its place and
    // starts here when promoted.
    state.phase = 'queued';
    state.waiting = { kind: 'start' };
    return;
  }
  if (checkpoint === null) {
    await fail(state, deps, kit, RunErrorCode.EXECUTION_INTERRUPTED, 'The worker running this workflow stopped in the middle of a step');
    return;
  }
  state.stepIndex = checkpoint.stepIndex;
  state.rounds = checkpoint.rounds;
  state.previousAnswer = checkpoint.previousAnswer;
  state.history = [...checkpoint.history];
  state.toolResults = [...checkpoint.toolResults];
  state.pendingCalls = [...checkpoint.pendingCalls];
  state.roundCalls = [...checkpoint.roundCalls];
  state.mcpToolset = checkpoint.mcpToolset ?? null;
  state.phase = 'approval';
  const approval = await deps.approvals.getById(checkpoint.approvalId);
  if (approval === null) {
    await fail(state, deps, kit, RunErrorCode.EXECUTION_INTERRUPTED, 'The approval this workflow waited for is gone');
    return;
  }
  deps.onApprovalPending?.(1);
  state.approval = { id: approval.id, requestedAtMs: approval.requestedAt.getTime(), child: null };
  if (approval.status === 'pending') {
    armApproval(state, deps, kit, approval.id, approval.expiresAt.getTime());
    return;
  }
  const decision: ApprovalDecision = approval.status === 'approved' || approval.status === 'expired' ? approval.status : 'rejected';
  await resolveApproval(state, deps, kit, approval.id, decision, approval.reason);
}

async function decisionRecorded(state: State, deps: WorkflowRunDeps, kit: Kit, approvalId: string, replyTo: ReplyRef<DecisionApplied>): Promise<void> {
  try {
    if (state.phase === 'approval' && state.approval?.id === approvalId) {
      const approval = await deps.approvals.getById(approvalId);
      if (approval !== null && (approval.status === 'approved' || approval.status === 'rejected')) {
        await resolveApproval(state, deps, kit, approvalId, approval.status, approval.reason);
      }
    }
  } finally {
    reply(replyTo, { type: 'workflowRun.decisionApplied' });
  }
}

async function resolveApproval(
  state: State,
  deps: WorkflowRunDeps,
  kit: Kit,
  approvalId: string,
  decision: ApprovalDecision,
  reason: string | null,
): Promise<void> {
  const pending = state.approval;
  if (state.phase !== 'approval' || pending === null || pending.id !== approvalId) return;
  if (pending.child !== null) stop(pending.child);
  state.approval = null;
  endApprovalSpan(state.approvalSpan, decision);
  state.approvalSpan = null;
  deps.onApprovalPending?.(-1);
  deps.metrics.approvalDecided(decision === 'expired' ? 'timed_out' : decision, kit.clock.now() - pending.requestedAtMs);
  await state.emitter.emit(WorkflowEvent.APPROVAL_RESOLVED, { approval_id: approvalId, decision, reason });
  await continueWithSlot(state, deps, kit, { kind: 'decision', approvalId, decision, reason });
}

/** Goes on after a decision, holding a slot; the checkpoint is cleared only now, so a run still queued for its slot can be resumed from it. */
async function applyDecision(state: State, deps: WorkflowRunDeps, kit: Kit, approvalId: string, decision: ApprovalDecision, reason: string | null): Promise<void> {
  await deps.runs.saveCheckpoint(state.record.id, null);
  const call = state.pendingCalls[0]!;
  state.phase = 'tools';
  if (decision === 'approved') {
    const tool = runnableTool(state, deps, call.name);
    if (tool.kind === 'tool') {
      await runTool(state, deps, kit, call, tool);
      return;
    }
    state.pendingCalls.shift();
    state.toolResults.push({ id: call.id, name: call.name, error: tool.error });
    await nextTool(state, deps, kit);
    return;
  }
  if (decision === 'expired' && (state.record.workflow.onApprovalTimeout ?? WORKFLOW_DEFAULTS.onApprovalTimeout) === 'fail') {
    await fail(state, deps, kit, RunErrorCode.APPROVAL_EXPIRED, `Approval '${approvalId}' for tool '${call.name}' expired without a decision`);
    return;
  }
  state.pendingCalls.shift();
  state.toolResults.push({ id: call.id, name: call.name, error: decision === 'expired' ? 'expired' : `rejected: ${reason ?? 'no reason given'}` });
  await nextTool(state, deps, kit);
}

async function complete(state: State, deps: WorkflowRunDeps, kit: Kit, answer: string): Promise<void> {
  state.phase = 'done';
  const closed = await deps.runs.transition(state.record.id, ['running'], 'completed', {
    finalAnswer: answer,
    checkpoint: null,
    completedAt: new Date(kit.clock.now()).toISOString(),
  });
  if (closed !== null) {
    state.record = closed;
    await state.emitter.emit(WorkflowEvent.DONE, { execution_id: closed.id, status: 'completed', final_answer: answer });
  }
  kit.stopSelf();
}

async function fail(state: State, deps: WorkflowRunDeps, kit: Kit, code: CatalogueCode, message: string): Promise<void> {
  state.phase = 'done';
  state.abort.abort();
  const closed = await closeRun(deps, state.emitter, state.record.id, 'failed', { code, message }, kit.clock.now());
  if (closed !== null) state.record = closed;
  kit.stopSelf();
}

/**
 * Records a failed or cancelled end (conditionally) and, if this call recorded it, emits `error`
 * (for failures) and `done` and cancels the run's pending approvals. Shared with the supervisor
 * (a faulted actor) and the service (a run with no live owner).
 */
export async function closeRun(
  deps: Pick<WorkflowRunDeps, 'runs' | 'approvals'>,
  emitter: RunEmitter,
  executionId: string,
  status: 'failed' | 'cancelled',
  error: { readonly code: string; readonly message: string } | null,
  nowMs: number,
): Promise<WorkflowRunRecord | null> {
  const closed = await deps.runs.transition(executionId, ['running'], status, {
    error,
    checkpoint: null,
    completedAt: new Date(nowMs).toISOString(),
  });
  if (closed === null) return null;
  await deps.approvals.cancelPending(executionId, new Date(nowMs));
  if (error !== null) await emitter.emit(WorkflowEvent.ERROR, error);
  await emitter.emit(WorkflowEvent.DONE, { execution_id: executionId, status, final_answer: null });
  return closed;
}

async function cancel(state: State, deps: WorkflowRunDeps, kit: Kit, replyTo: ReplyRef<RunCancelReply>): Promise<void> {
  state.abort.abort();
  state.phase = 'done';
  const closed = await closeRun(deps, state.emitter, state.record.id, 'cancelled', null, kit.clock.now());
  if (closed !== null) state.record = closed;
  reply(replyTo, { type: 'workflowRun.cancelReply', record: closed });
  kit.stopSelf();
}
