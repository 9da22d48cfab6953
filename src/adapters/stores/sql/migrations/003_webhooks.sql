-- Webhook delivery outbox (DESIGN §11). One row per event per execution; the WebhookActor on any
-- worker claims due rows, POSTs them and records the outcome. Runs with search_path set to Baton's schema.

create table webhook_deliveries (
  id               text primary key,                 -- dlv_…, also X-Service-Delivery and webhook-id
  execution_id     text not null,
  account_id       text not null references accounts (id) on delete cascade,
  url              text not null,
  event            text not null check (event in (
                     'execution.started', 'execution.completed', 'execution.failed', 'execution.cancelled')),
  -- Order of events within one execution; a row is not sent while an earlier one is unfinished.
  sequence         integer not null,
  body             text not null,                    -- the exact bytes sent on every attempt
  headers          jsonb not null,                   -- fixed headers, X-Service-Signature included
  -- Kept only while the delivery is unfinished, for the per-attempt Standard Webhooks signature;
  -- erased once it is delivered or finally failed.
  signing_secret   text,
  status           text not null default 'pending'
                     check (status in ('pending', 'delivering', 'delivered', 'failed')),
  attempts         integer not null default 0,
  max_attempts     integer not null,
  next_attempt_at  timestamptz not null,
  -- While delivering: when the claim lapses and another worker may take the row over.
  lease_until      timestamptz,
  last_status_code integer,
  last_error       text,
  last_attempt_at  timestamptz,
  created_at       timestamptz not null default now(),
  delivered_at     timestamptz,
  unique (execution_id, sequence),
  -- One delivery per event: a second enqueue (a retried or taken-over execution) is a no-op.
  unique (execution_id, event)
);

-- Claims scan only unfinished rows, by due time.
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at)
  where status in ('pending', 'delivering');

-- The delivery log per execution (GET /v1/executions/{id}/webhooks), and the ordering check.
create index webhook_deliveries_execution on webhook_deliveries (execution_id, sequence);
