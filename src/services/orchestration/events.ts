/**
 * What happens when an execution changes state: metrics now, webhooks through the outbox
 * (`WebhookSink`) when the execution asked for them. Never throws into the execution actor.
 */
import type { ExecutionEvents } from '../../actors/execution-actor.js';
import type { Logger } from '../../support/log.js';
import type { Metrics } from '../../support/metrics/index.js';
import type { ExecutionRecord } from '../../domain/executions.js';
import type { StatusWatch } from './status-watch.js';

/** Receives each transition of an execution that configured a webhook. */
export interface WebhookSink {
  enqueue(record: ExecutionRecord): Promise<void>;
}

export interface ExecutionEventsDeps {
  readonly metrics: Pick<Metrics, 'executionStarted' | 'executionFinished'>;
  readonly logger: Logger;
  readonly webhooks?: WebhookSink;
  /** Wakes clients waiting on the execution (long poll, event stream) on every worker. */
  readonly statusWatch?: Pick<StatusWatch, 'published'>;
}

export function createExecutionEvents(deps: ExecutionEventsDeps): ExecutionEvents {
  const webhook = (record: ExecutionRecord): void => {
    if (record.webhook !== null && deps.webhooks !== undefined) {
      deps.webhooks.enqueue(record).catch((error: unknown) => {
        deps.logger.error({ err: error, executionId: record.id }, 'webhook not enqueued');
      });
    }
  };
  return {
    replayed: webhook,
    transitioned(record) {
      deps.statusWatch?.published(record);
      switch (record.status) {
        case 'RUNNING':
          deps.metrics.executionStarted(record.fees.tier);
          break;
        case 'COMPLETED':
        case 'FAILED':
        case 'CANCELLED':
          deps.metrics.executionFinished(record.status === 'COMPLETED' ? 'completed' : record.status === 'FAILED' ? 'failed' : 'cancelled', record.actualDurationMs ?? 0);
          break;
        default:
          break;
      }
      webhook(record);
    },
  };
}
