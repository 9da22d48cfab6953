-- Registered agents (spec §2.2, DESIGN §7). Runs with search_path set to Baton's schema.
-- owner_account_id null: a global agent (registered with the operator token), visible to every
-- account; otherwise visible to that account only. Ids are unique within what an account sees:
-- the two partial unique indexes hold within each scope, and registration takes a transaction
-- advisory lock on the id before checking the other scope (agents.ts), which no index can express.

create table agents (
  seq                  bigserial primary key,
  id                   text not null,
  owner_account_id     text references accounts (id) on delete cascade,
  name                 text not null,
  description          text not null,
  url                  text not null,
  vertical             text not null,
  capabilities         text[] not null,
  pricing_model        text not null,
  base_price_micro_usd bigint not null check (base_price_micro_usd >= 0),
  timeout_ms           integer not null check (timeout_ms between 1000 and 300000),
  created_at           timestamptz not null default now(),
  updated_at           timestamptz not null default now()
);

create unique index agents_global_id on agents (id) where owner_account_id is null;
create unique index agents_account_id on agents (owner_account_id, id) where owner_account_id is not null;
-- Cross-scope conflict checks look an id up in every scope.
create index agents_id on agents (id);
