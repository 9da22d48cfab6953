/**
 * Turns execution transitions into outbox deliveries (signed now, sent by the WebhookActor):
 * RUNNING → execution.started, COMPLETED → .completed, FAILED → .failed, CANCELLED → .cancelled.
 * The outbox keeps them in order per execution and skips an event already enqueued.
 */
import type { WebhookSender } from '../../actors/webhook-protocol.js';
import type { ExecutionRecord } from '../../domain/executions.js';
import { ErrorCode } from '../../domain/errors.js';
import type { WebhookStore } from '../../ports/webhooks.js';
import { cancelledData, completedData, eventForStatus, failedData, startedData, type RunMetrics, type WebhookData } from '../../logic/webhooks/events.js';
import { enqueueWebhook } from '../../logic/webhooks/outbox.js';
import { runTraceparent } from '../../support/telemetry/index.js';
import type { WebhookSink } from './events.js';

function runMetrics(record: ExecutionRecord): RunMetrics {
  return {
    actualCostMicros: record.actualCostMicros ?? 0,
    actualDurationMs: record.actualDurationMs ?? 0,
    agentsUsed: record.agentsUsed ?? 0,
  };
}

function dataFor(record: ExecutionRecord): WebhookData | null {
  switch (record.status) {
    case 'RUNNING':
      return startedData(new Date(record.startedAt ?? Date.now()));
    case 'COMPLETED':
      return record.result === null ? null : completedData(record.result, runMetrics(record));
    case 'FAILED':
      return failedData(record.error ?? { code: ErrorCode.INTERNAL_ERROR, message: 'failed' }, runMetrics(record), record.result ?? undefined);
    case 'CANCELLED':
      return cancelledData(runMetrics(record));
    default:
      return null;
  }
}

export function outboxWebhookSink(store: Pick<WebhookStore, 'enqueue'>, sender: WebhookSender): WebhookSink {
  // An execution's events must reach the outbox in the order they happened; without this chain a
  // quick run's `completed` could commit before its `started` on another pooled connection.
  const tails = new Map<string, Promise<void>>();

  async function enqueueOne(record: ExecutionRecord, traceparent: string | undefined): Promise<void> {
    const event = eventForStatus(record.status);
    const data = dataFor(record);
    if (record.webhook === null || event === null || data === null) return;
    const config = {
      url: record.webhook.url,
      events: record.webhook.events,
      ...(record.webhook.secret === null ? {} : { secret: record.webhook.secret }),
    };
    const delivery = await enqueueWebhook(store, { accountId: record.accountId, executionId: record.id, config, event, data, at: new Date(), traceparent });
    if (delivery !== null) sender.kick();
  }

  return {
    enqueue(record) {
      const previous = tails.get(record.id) ?? Promise.resolve();
      // Read now: the run's span may have ended by the time the chain gets to this event.
      const traceparent = record.webhook === null ? undefined : runTraceparent(record.id);
      const next = previous.catch(() => undefined).then(() => enqueueOne(record, traceparent));
      tails.set(record.id, next);
      void next.finally(() => {
        if (tails.get(record.id) === next) tails.delete(record.id);
      }).catch(() => undefined);
      return next;
    },
  };
}
