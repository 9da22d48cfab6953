-- Agents that speak A2A (docs/a2a.md): registered by their agent card's URL, which is kept here
-- (health is a fetch of the card); `url` holds the card's JSON-RPC endpoint. Null: Baton's own
-- agent protocol, as every agent registered before this migration.
alter table agents add column a2a_card_url text;
