/**
 * Aggregation strategies (DESIGN §7): turn the agents' results into one `result { summary,
 * details }`. merge, best and custom list every agent under its own id in `details` (its output,
 * or `{ error: { code, message } }` when it failed); what a strategy adds (the chosen agent, the
 * aggregator's answer) goes under the reserved key `_aggregation`. vote is the exception: a caller
 * who asked for a vote reads the voted values first, so they are the top of `details` and the
 * per-agent outputs move under `_aggregation.agents`, beside the tally.
 *
 * - merge (default): every output under its agent id; the summary joins each agent's summary.
 * - best: only the output of the highest-confidence agent that succeeded (ties: selection order).
 * - vote: per top-level field of the agents' result objects, the value most agents returned
 *   (plurality); ties go to the value whose agents have the greater summed confidence, then the
 *   single most confident agent, then selection order. The winners are `details`' own fields; the
 *   tally and every agent's output are under `details._aggregation`.
 * - custom: the call to the aggregator agent is the actor's; `customAggregatorInput` builds what
 *   it receives and `fromCustomAggregator` shapes what it returns.
 */
import type { AgentRunResult, AggregatedResult, ExecutionError } from '../../domain/orchestration.js';

/** Key in `details` for what the strategy adds; chosen so it cannot look like a typical agent id. */
export const AGGREGATION_KEY = '_aggregation';

/** Longest summary taken from one agent; longer text is cut with an ellipsis. */
const MAX_AGENT_SUMMARY = 2_000;
/** Output fields read, in order, as an agent's summary text. */
const SUMMARY_FIELDS = ['summary', 'answer', 'text', 'result', 'content', 'message', 'output'] as const;

type Succeeded = Extract<AgentRunResult, { ok: true }>;

/** Applies merge, best or vote; custom goes through `customAggregatorInput`/`fromCustomAggregator`. */
export function aggregate(strategy: 'merge' | 'best' | 'vote', results: readonly AgentRunResult[]): AggregatedResult {
  switch (strategy) {
    case 'merge':
      return mergeResults(results);
    case 'best':
      return bestResult(results);
    case 'vote':
      return voteResults(results);
  }
}

/** An agent's text answer: its first string field among summary/answer/text/…, else its JSON. */
export function summaryOf(output: Readonly<Record<string, unknown>>): string {
  return summaryFieldOf(output) ?? clip(JSON.stringify(output) ?? '');
}

export function mergeResults(results: readonly AgentRunResult[]): AggregatedResult {
  const succeeded = results.filter(isSucceeded);
  const parts = succeeded.map((r) => (succeeded.length === 1 ? summaryOf(r.output) : `${r.agentId}: ${summaryOf(r.output)}`));
  return { summary: withFailureNote(parts.join('\n\n'), results), details: agentDetails(results) };
}

export function bestResult(results: readonly AgentRunResult[]): AggregatedResult {
  let best: Succeeded | undefined;
  for (const r of results) if (isSucceeded(r) && (best === undefined || r.confidence > best.confidence)) best = r;
  if (best === undefined) return noneSucceeded(results);
  const chosen = best;
  // Other successful outputs are left out on purpose: `best` means one answer, not a merge.
  const shown = results.filter((r) => !r.ok || r.agentId === chosen.agentId);
  return {
    summary: summaryOf(chosen.output),
    details: withAggregation(shown, {
      strategy: 'best',
      agentId: chosen.agentId,
      confidence: chosen.confidence,
      candidates: results.filter(isSucceeded).map((r) => ({ agentId: r.agentId, confidence: r.confidence })),
    }),
  };
}

/** One distinct value of one field, and who returned it. */
export interface VoteEntry {
  readonly value: unknown;
  readonly votes: number;
  /** Sum of the voting agents' confidence (rounded to 4 places). */
  readonly confidence: number;
  readonly agents: readonly string[];
}

export interface FieldVote {
  readonly winner: unknown;
  /** Agents that returned the field at all. */
  readonly voters: number;
  /** True when the winner has more than half of the field's voters. */
  readonly majority: boolean;
  /** How a tie on votes was settled; null when there was none. */
  readonly tieBrokenBy: 'confidence' | 'selection_order' | null;
  /** Every distinct value, best first. */
  readonly tally: readonly VoteEntry[];
}

export function voteResults(results: readonly AgentRunResult[]): AggregatedResult {
  const voters = results.filter(isSucceeded);
  if (voters.length === 0) return noneSucceeded(results);
  const fields: string[] = [];
  for (const r of voters) for (const field of Object.keys(r.output)) if (!fields.includes(field)) fields.push(field);

  const byField = new Map<string, FieldVote>();
  for (const field of fields) byField.set(field, voteOnField(field, voters));
  const winner = Object.fromEntries([...byField].map(([field, vote]) => [field, vote.winner]));
  const tally = Object.fromEntries(byField);

  const text = summaryFieldOf(winner);
  const summary =
    text ??
    `Vote of ${voters.length} agent${voters.length === 1 ? '' : 's'}: ` +
      [...byField].map(([field, vote]) => `${field} = ${clip(JSON.stringify(vote.winner) ?? 'null', 200)} (${vote.tally[0]?.votes ?? 0}/${vote.voters})`).join('; ');
  // A voted field that happens to be named `_aggregation` stays only in the tally: the key is reserved.
  const voted = Object.fromEntries(Object.entries(winner).filter(([field]) => field !== AGGREGATION_KEY));
  return {
    summary: withFailureNote(summary, results),
    details: {
      ...voted,
      [AGGREGATION_KEY]: { strategy: 'vote', voters: voters.length, agents: agentDetails(results), tally },
    },
  };
}

function voteOnField(field: string, voters: readonly Succeeded[]): FieldVote {
  interface Group {
    value: unknown;
    votes: number;
    confidence: number;
    maxConfidence: number;
    firstSeen: number;
    agents: string[];
  }
  const groups = new Map<string, Group>();
  let fieldVoters = 0;
  voters.forEach((r, index) => {
    if (!Object.hasOwn(r.output, field)) return;
    fieldVoters += 1;
    const value = r.output[field];
    const key = canonicalJson(value);
    let group = groups.get(key);
    if (group === undefined) {
      group = { value, votes: 0, confidence: 0, maxConfidence: 0, firstSeen: index, agents: [] };
      groups.set(key, group);
    }
    group.votes += 1;
    group.confidence += r.confidence;
    group.maxConfidence = Math.max(group.maxConfidence, r.confidence);
    group.agents.push(r.agentId);
  });
  const ranked = [...groups.values()].sort(
    (a, b) => b.votes - a.votes || b.confidence - a.confidence || b.maxConfidence - a.maxConfidence || a.firstSeen - b.firstSeen,
  );
  const [first, second] = ranked;
  let tieBrokenBy: FieldVote['tieBrokenBy'] = null;
  if (first !== undefined && second !== undefined && first.votes === second.votes) {
    tieBrokenBy = first.confidence !== second.confidence || first.maxConfidence !== second.maxConfidence ? 'confidence' : 'selection_order';
  }
  return {
    winner: first?.value ?? null,
    voters: fieldVoters,
    majority: first !== undefined && first.votes * 2 > fieldVoters,
    tieBrokenBy,
    tally: ranked.map((g) => ({ value: g.value, votes: g.votes, confidence: round4(g.confidence), agents: g.agents })),
  };
}

// --- custom ------------------------------------------------------------------------------------

/** What the aggregator agent receives as `input.prompt` and `input.context`. */
export interface CustomAggregatorInput {
  readonly prompt: string;
  readonly context: {
    readonly query: string;
    /** Successful outputs under their agent ids. */
    readonly outputs: Readonly<Record<string, unknown>>;
    /** Failed agents' errors under their ids. */
    readonly failures: Readonly<Record<string, ExecutionError>>;
    readonly confidence: Readonly<Record<string, number>>;
  };
}

/** Builds the `custom` aggregator agent's input: every output, every failure, the original query. */
export function customAggregatorInput(query: string, results: readonly AgentRunResult[]): CustomAggregatorInput {
  const succeeded = results.filter(isSucceeded);
  return {
    prompt:
      `Combine the outputs of ${succeeded.length} agent${succeeded.length === 1 ? '' : 's'} (in context.outputs, keyed by agent id) ` +
      `into one answer to this request: ${query}`,
    context: {
      query,
      outputs: Object.fromEntries(succeeded.map((r) => [r.agentId, r.output])),
      failures: Object.fromEntries(results.flatMap((r) => (r.ok ? [] : [[r.agentId, r.error] as const]))),
      confidence: Object.fromEntries(results.map((r) => [r.agentId, r.confidence])),
    },
  };
}

/** The result from the aggregator agent's answer: its summary; its whole output under `_aggregation`. */
export function fromCustomAggregator(
  aggregatorId: string,
  output: Readonly<Record<string, unknown>>,
  results: readonly AgentRunResult[],
): AggregatedResult {
  return {
    summary: summaryOf(output),
    details: withAggregation(results, { strategy: 'custom', agentId: aggregatorId, output }),
  };
}

// --- helpers -----------------------------------------------------------------------------------

function isSucceeded(r: AgentRunResult): r is Succeeded {
  return r.ok;
}

/** Every agent under its id: its output, or `{ error }`. */
export function agentDetails(results: readonly AgentRunResult[]): Readonly<Record<string, unknown>> {
  // fromEntries defines own properties, so an agent id such as '__proto__' stays a plain key.
  return Object.fromEntries(results.map((r) => [r.agentId, r.ok ? r.output : { error: { code: r.error.code, message: r.error.message } }]));
}

function withAggregation(results: readonly AgentRunResult[], aggregation: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  return { ...agentDetails(results), [AGGREGATION_KEY]: aggregation };
}

function noneSucceeded(results: readonly AgentRunResult[]): AggregatedResult {
  return { summary: `All ${results.length} agent${results.length === 1 ? '' : 's'} failed`, details: agentDetails(results) };
}

function withFailureNote(summary: string, results: readonly AgentRunResult[]): string {
  const failed = results.filter((r) => !r.ok).map((r) => r.agentId);
  if (failed.length === 0) return summary;
  const note = `(${failed.length} of ${results.length} agents failed: ${failed.join(', ')})`;
  return summary === '' ? note : `${summary}\n\n${note}`;
}

function summaryFieldOf(output: Readonly<Record<string, unknown>>): string | undefined {
  for (const field of SUMMARY_FIELDS) {
    const value = output[field];
    if (typeof value === 'string' && value.trim() !== '') return clip(value.trim());
  }
  return undefined;
}

function clip(text: string, max = MAX_AGENT_SUMMARY): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function round4(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}

/** JSON with object keys sorted, so {a,b} and {b,a} count as the same vote. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
