/** What clients see of an execution (spec §2.3): USD amounts, ISO times, absolute statusUrl. */
import { isTerminalExecution, type ExecutionProgress, type ExecutionRecord } from '../../domain/executions.js';
import { microsToUsd } from '../../logic/orchestration/cost.js';

const QUERY_PREVIEW_CHARS = 500;

export function creationView(record: ExecutionRecord, publicUrl: string) {
  return {
    executionId: record.id,
    status: record.status,
    estimatedCost: microsToUsd(record.estimatedCostMicros),
    estimatedDuration: record.estimatedDurationMs,
    selectedAgents: record.selectedAgents.map((a) => ({
      id: a.id,
      name: a.name,
      vertical: a.vertical,
      estimatedCost: microsToUsd(a.estimatedCostMicros),
      confidence: a.confidence,
    })),
    mode: record.mode,
    message: `Execution accepted: ${record.selectedAgents.length} agent${record.selectedAgents.length === 1 ? '' : 's'} selected, running in ${record.mode} mode`,
    statusUrl: `${publicUrl}/v1/executions/${record.id}`,
  };
}

export function statusView(record: ExecutionRecord) {
  const terminal = isTerminalExecution(record.status);
  const query = record.query.length > QUERY_PREVIEW_CHARS ? `${record.query.slice(0, QUERY_PREVIEW_CHARS)}…` : record.query;
  return {
    id: record.id,
    status: record.status,
    query,
    mode: record.mode,
    aggregationStrategy: record.aggregation,
    selectedAgents: record.selectedAgents.map((a) => ({ id: a.id, name: a.name, confidence: a.confidence })),
    estimatedCost: microsToUsd(record.estimatedCostMicros),
    estimatedDuration: record.estimatedDurationMs,
    ...(record.status === 'RUNNING' && record.progress !== null ? { progress: progressView(record.progress) } : {}),
    ...(record.result !== null && record.status !== 'CANCELLED' ? { result: record.result } : {}),
    ...(record.status === 'FAILED' && record.error !== null ? { error: record.error } : {}),
    ...(terminal
      ? {
          metadata: {
            actualCost: microsToUsd(record.actualCostMicros ?? 0),
            actualDuration: record.actualDurationMs ?? 0,
            agentsUsed: record.agentsUsed ?? 0,
          },
        }
      : {}),
    createdAt: record.createdAt,
    ...(record.startedAt === null ? {} : { startedAt: record.startedAt }),
    ...(record.completedAt === null ? {} : { completedAt: record.completedAt }),
  };
}

/** Records written before `runningAgents` existed get it from `currentAgent`. */
function progressView(progress: ExecutionProgress) {
  const runningAgents = progress.runningAgents ?? (progress.currentAgent === null ? [] : [progress.currentAgent]);
  return { completed: progress.completed, total: progress.total, currentAgent: progress.currentAgent, runningAgents };
}
