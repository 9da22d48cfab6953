/** Webhook delivery bodies (spec §6.1, DESIGN §11; src/logic/webhooks/events.ts and sign.ts). */
import { Type, type TSchema } from '@sinclair/typebox';
import { ExecutionResult, FailureReason, RunMetadata } from './executions.js';
import { Timestamp } from './common.js';

function envelope<E extends string>(event: E, data: TSchema, title: string) {
  return Type.Object(
    {
      event: Type.Literal(event),
      executionId: Type.String(),
      timestamp: Type.String({ format: 'date-time', description: 'When the event happened; the same on every retry' }),
      signature: Type.Optional(
        Type.String({ description: 'sha256=<hex HMAC of the body without this field>; absent when the webhook has no secret. Verify X-Service-Signature instead' }),
      ),
      data,
    },
    { title },
  );
}

/** The body Baton POSTs for each event, by event name. */
export const WebhookPayloads = {
  'execution.started': envelope('execution.started', Type.Object({ status: Type.Literal('RUNNING'), startedAt: Timestamp }), 'ExecutionStartedWebhook'),
  'execution.completed': envelope(
    'execution.completed',
    Type.Object({ status: Type.Literal('COMPLETED'), result: ExecutionResult, metadata: RunMetadata }),
    'ExecutionCompletedWebhook',
  ),
  'execution.failed': envelope(
    'execution.failed',
    Type.Object({ status: Type.Literal('FAILED'), error: FailureReason, result: Type.Optional(ExecutionResult), metadata: RunMetadata }),
    'ExecutionFailedWebhook',
  ),
  'execution.cancelled': envelope('execution.cancelled', Type.Object({ status: Type.Literal('CANCELLED'), metadata: RunMetadata }), 'ExecutionCancelledWebhook'),
};

/** Headers sent with every delivery (src/logic/webhooks/sign.ts). */
export const WebhookHeaders: Readonly<Record<string, string>> = {
  'X-Service-Signature': 'sha256=<hex HMAC-SHA256 of the raw body under the secret>; check this one (src/logic/webhooks/verify.ts)',
  'X-Service-Event': 'The event name',
  'X-Service-Delivery': 'Delivery id, the same on every retry: drop duplicates by it',
  'X-Service-Timestamp': 'Unix seconds of this attempt',
  'webhook-id': 'Standard Webhooks: the delivery id',
  'webhook-timestamp': 'Standard Webhooks: Unix seconds of this attempt',
  'webhook-signature': 'Standard Webhooks: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">',
};
