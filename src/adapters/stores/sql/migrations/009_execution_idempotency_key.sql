-- The Idempotency-Key a submit carried, recorded on the execution in the same insert: a retry
-- whose first attempt's worker died before answering finds the execution by its key, and a
-- second execution with the same key cannot be recorded (docs/orchestration.md, Idempotency).
alter table executions add column idempotency_key text;
create unique index executions_idempotency_key on executions (account_id, idempotency_key) where idempotency_key is not null;
