-- Workflows (DESIGN §8): definitions, runs and approvals.

-- A definition per (owner, slug). account_id null: a global workflow registered with the
-- operator token, visible to every account (an account's own workflow of the same slug wins).
create table workflows (
  account_id text references accounts (id) on delete cascade,
  slug text not null,
  definition jsonb not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- coalesce: a unique constraint treats nulls as distinct, and global slugs must be unique too.
create unique index workflows_owner_slug on workflows (coalesce(account_id, ''), slug);

-- One row per run: columns that queries filter on, the rest (definition snapshot, checkpoint,
-- outcome) as JSON. owner/lease_until: which worker runs it, until when (takeover after expiry).
create table workflow_runs (
  id text primary key,
  account_id text not null references accounts (id) on delete cascade,
  status text not null check (status in ('running', 'completed', 'failed', 'cancelled')),
  record jsonb not null,
  owner text,
  lease_until timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index workflow_runs_live on workflow_runs (lease_until) where status = 'running';
create index workflow_runs_owner on workflow_runs (owner) where status = 'running';

create table workflow_approvals (
  id text primary key,
  execution_id text not null references workflow_runs (id) on delete cascade,
  account_id text not null references accounts (id) on delete cascade,
  workflow_slug text not null,
  tool_call jsonb not null,
  status text not null check (status in ('pending', 'approved', 'rejected', 'expired', 'cancelled')),
  reason text,
  requested_at timestamptz not null,
  expires_at timestamptz not null,
  decided_at timestamptz
);
create index workflow_approvals_account_status on workflow_approvals (account_id, status, requested_at);
create index workflow_approvals_execution on workflow_approvals (execution_id) where status = 'pending';
