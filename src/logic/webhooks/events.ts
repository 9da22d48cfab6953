/**
 * Webhook events (spec §6.1, DESIGN §11) and the `data` each one carries. Per execution they go
 * out in the order execution.started, then one of completed / failed / cancelled; the outbox
 * (sequence per execution) keeps that order on the wire.
 */
import { microsToUsd } from '../orchestration/cost.js';
import type { AggregatedResult, ExecutionError, ExecutionStatus } from '../../domain/orchestration.js';

export const WebhookEvent = {
  STARTED: 'execution.started',
  COMPLETED: 'execution.completed',
  FAILED: 'execution.failed',
  CANCELLED: 'execution.cancelled',
} as const;
export type WebhookEvent = (typeof WebhookEvent)[keyof typeof WebhookEvent];

/** Every event, in the order they happen. */
export const WEBHOOK_EVENTS: readonly WebhookEvent[] = Object.values(WebhookEvent);

export function isWebhookEvent(value: string): value is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(value);
}

/** The request's `webhook` object (spec §2.5). */
export interface WebhookConfig {
  readonly url: string;
  /** Absent or empty: every event. */
  readonly events?: readonly string[];
  /** Absent: deliveries go out unsigned (no signature field, no signature headers). */
  readonly secret?: string;
}

export function wantsEvent(config: WebhookConfig, event: WebhookEvent): boolean {
  return config.events === undefined || config.events.length === 0 || config.events.includes(event);
}

/** The event a status change announces, or null (PENDING announces nothing). */
export function eventForStatus(status: ExecutionStatus): WebhookEvent | null {
  switch (status) {
    case 'RUNNING':
      return WebhookEvent.STARTED;
    case 'COMPLETED':
      return WebhookEvent.COMPLETED;
    case 'FAILED':
      return WebhookEvent.FAILED;
    case 'CANCELLED':
      return WebhookEvent.CANCELLED;
    case 'PENDING':
      return null;
  }
}

/** Cost and time of a finished run, as the status response's `metadata` shows them (USD, ms). */
export interface RunMetrics {
  readonly actualCostMicros: number;
  readonly actualDurationMs: number;
  readonly agentsUsed: number;
}

export interface WebhookMetadata {
  readonly actualCost: number;
  readonly actualDuration: number;
  readonly agentsUsed: number;
}

function metadata(run: RunMetrics): WebhookMetadata {
  return { actualCost: microsToUsd(run.actualCostMicros), actualDuration: Math.round(run.actualDurationMs), agentsUsed: run.agentsUsed };
}

export interface StartedData {
  readonly status: 'RUNNING';
  readonly startedAt: string;
}

export interface CompletedData {
  readonly status: 'COMPLETED';
  readonly result: AggregatedResult;
  readonly metadata: WebhookMetadata;
}

export interface FailedData {
  readonly status: 'FAILED';
  readonly error: ExecutionError;
  /** The failed agents under their ids (and any that succeeded before the failure). */
  readonly result?: AggregatedResult;
  readonly metadata: WebhookMetadata;
}

export interface CancelledData {
  readonly status: 'CANCELLED';
  readonly metadata: WebhookMetadata;
}

export type WebhookData = StartedData | CompletedData | FailedData | CancelledData;

export const startedData = (startedAt: Date): StartedData => ({ status: 'RUNNING', startedAt: startedAt.toISOString() });

export const completedData = (result: AggregatedResult, run: RunMetrics): CompletedData => ({
  status: 'COMPLETED',
  result,
  metadata: metadata(run),
});

export const failedData = (error: ExecutionError, run: RunMetrics, result?: AggregatedResult): FailedData => ({
  status: 'FAILED',
  error: { code: error.code, message: error.message },
  ...(result === undefined ? {} : { result }),
  metadata: metadata(run),
});

export const cancelledData = (run: RunMetrics): CancelledData => ({ status: 'CANCELLED', metadata: metadata(run) });
