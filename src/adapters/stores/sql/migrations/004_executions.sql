-- Orchestration executions and idempotency records.
-- An execution is one row: a few columns that queries filter on, and the record as JSON
-- (request, selection, progress, result), so adding a field needs no migration.
create table executions (
  id text primary key,
  account_id text not null references accounts (id) on delete cascade,
  status text not null check (status in ('PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED')),
  record jsonb not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index executions_account_created on executions (account_id, created_at desc);
-- Recovery scans live executions only.
create index executions_live on executions (status) where status in ('PENDING', 'RUNNING');

create table idempotency_keys (
  account_id text not null references accounts (id) on delete cascade,
  key text not null,
  request_hash text not null,
  state text not null check (state in ('in_progress', 'done')),
  response_status int,
  response_body jsonb,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (account_id, key)
);
create index idempotency_keys_expires on idempotency_keys (expires_at);
