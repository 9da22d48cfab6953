/**
 * AggregatorActor: turns an execution's agent results into its `result`. merge, best and vote are
 * pure functions; `custom` calls the aggregator agent the request named (no user code ever runs
 * in the service). It answers once, to the execution that asked, then stops.
 */
import type { AgentCalls } from './agent-protocol.js';
import { aggregate, customAggregatorInput, fromCustomAggregator } from '../logic/orchestration/aggregate.js';
import { usdToMicros } from '../logic/orchestration/cost.js';
import { RunErrorCode } from '../domain/errors.js';
import type { AgentRunResult, AggregationStrategy } from '../domain/orchestration.js';
import type { ExecutionMessage } from './execution-protocol.js';
import { defineActor, dispatch, type Ref } from './kit/index.js';

export interface AggregateRequest {
  readonly type: 'aggregator.aggregate';
  readonly strategy: AggregationStrategy;
  readonly query: string;
  readonly results: readonly AgentRunResult[];
  readonly accountId: string;
  readonly executionId: string;
  readonly customAggregator: string | null;
  readonly timeoutMs: number | undefined;
  readonly signal: AbortSignal;
  /** The execution's trace context, for a custom aggregator's `invoke_agent` span. */
  readonly traceparent?: string;
  readonly replyTo: Ref<ExecutionMessage>;
}

export type AggregatorMessage = AggregateRequest;

export function aggregatorActor(directory: AgentCalls) {
  return defineActor<null, AggregatorMessage>({
    init: () => null,
    handle: async (state, msg, kit) => {
      dispatch(msg.replyTo, await run(directory, msg));
      kit.stopSelf();
      return state;
    },
  });
}

async function run(directory: AgentCalls, msg: AggregateRequest): Promise<ExecutionMessage> {
  if (msg.strategy !== 'custom' || msg.customAggregator === null) {
    const strategy = msg.strategy === 'custom' ? 'merge' : msg.strategy;
    return { type: 'execution.aggregated', result: aggregate(strategy, msg.results), error: null, reportedMicros: null, succeeded: true };
  }
  const input = customAggregatorInput(msg.query, msg.results);
  const outcome = await directory.execute(msg.accountId, msg.customAggregator, {
    prompt: input.prompt,
    context: input.context,
    requestId: msg.executionId,
    userId: msg.accountId,
    ...(msg.timeoutMs === undefined ? {} : { timeoutMs: msg.timeoutMs }),
    signal: msg.signal,
    traceparent: msg.traceparent,
  });
  if (outcome.ok) {
    return {
      type: 'execution.aggregated',
      result: fromCustomAggregator(msg.customAggregator, outcome.result, msg.results),
      error: null,
      // No reported cost: the aggregator's base price stands in (DESIGN §14), as for any agent.
      reportedMicros: outcome.metadata.cost === null
        ? basePriceMicros(directory, msg.accountId, msg.customAggregator)
        : usdToMicros(outcome.metadata.cost),
      succeeded: true,
    };
  }
  const reported = 'cost' in outcome && typeof outcome.cost === 'number' ? usdToMicros(outcome.cost) : null;
  return {
    type: 'execution.aggregated',
    result: null,
    error: { code: RunErrorCode.AGGREGATOR_FAILED, message: `Aggregator agent '${msg.customAggregator}' failed: ${outcome.message}` },
    reportedMicros: reported,
    succeeded: false,
  };
}

/** The agent's registered base price in micro-USD (0 if it was removed meanwhile). */
function basePriceMicros(directory: Pick<AgentCalls, 'visible'>, accountId: string, agentId: string): number {
  return directory.visible(accountId, agentId)?.basePriceMicroUsd ?? 0;
}
