-- Per-agent concurrency cap: calls one worker sends an agent at once; more wait in a queue.
-- Set at registration and by PATCH (1–1000); existing agents keep the old fixed cap of 16.
alter table agents add column max_concurrency integer not null default 16
  check (max_concurrency between 1 and 1000);
