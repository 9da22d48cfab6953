-- Example requests an agent's owner gives for selection (docs/selection.md): 0–20 strings of
-- 1–500 characters, checked by the API before they get here. Existing agents have none.
alter table agents add column examples text[] not null default '{}';
