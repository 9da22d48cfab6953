-- Lists of an account's workflow runs, newest first (GET /v1/workflow-runs, the console).
-- Executions already have executions_account_created (004).
create index workflow_runs_account_created on workflow_runs (account_id, created_at desc, id desc);
