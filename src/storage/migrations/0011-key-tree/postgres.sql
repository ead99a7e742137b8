-- name: key delegation tree

-- The key tree (docs/api.md, "Who may revoke whom"): the key that made each key (NULL: a
-- top-level key — made by the operator, a bootstrap key or the first-run key, or made before
-- keys recorded their maker), and whether it is an owner key, which manages every key.
ALTER TABLE api_keys ADD COLUMN parent_id BIGINT REFERENCES api_keys (id), ADD COLUMN owner BOOLEAN NOT NULL DEFAULT false;
CREATE INDEX api_keys_parent ON api_keys (parent_id) WHERE parent_id IS NOT NULL;
-- The first-run key (the first key, named so by main.ts) was the owner's all-scope key.
UPDATE api_keys SET owner = true WHERE name = 'first-run' AND id = (SELECT min(id) FROM api_keys);
