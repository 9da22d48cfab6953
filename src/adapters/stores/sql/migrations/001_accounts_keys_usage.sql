-- Accounts, API keys and key activity (DESIGN §6). Runs with search_path set to Baton's schema.

create table accounts (
  id               text primary key,
  name             text not null,
  tier             text not null check (tier in ('DEVELOPER', 'BUSINESS', 'ENTERPRISE')),
  limits           jsonb,
  fee_basis_points integer check (fee_basis_points between 0 and 10000),
  created_at       timestamptz not null default now()
);

create table api_keys (
  id           text primary key,
  account_id   text not null references accounts (id) on delete cascade,
  name         text not null,
  key_hash     text not null unique,
  permissions  text[] not null,
  created_at   timestamptz not null default now(),
  expires_at   timestamptz,
  is_active    boolean not null default true,
  ip_whitelist text[],
  last_used_at timestamptz
);

-- listByAccount: newest first within one account.
create index api_keys_account_created on api_keys (account_id, created_at desc, id desc);

create table key_usage_hourly (
  key_id text not null references api_keys (id) on delete cascade,
  hour   timestamptz not null,
  count  bigint not null,
  primary key (key_id, hour)
);

-- Retention pruning deletes by age across all keys.
create index key_usage_hourly_hour on key_usage_hourly (hour);

create table key_requests (
  id          bigserial primary key,
  key_id      text not null references api_keys (id) on delete cascade,
  at          timestamptz not null,
  endpoint    text not null,
  method      text not null,
  status_code integer not null,
  ip_address  text not null
);

create index key_requests_key_at on key_requests (key_id, at desc);
