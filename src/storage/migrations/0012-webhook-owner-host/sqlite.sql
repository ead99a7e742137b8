-- name: webhook endpoints: the key that owns each, and its destination host

-- owner_key_id: the API key that registered the endpoint or made its last change; deliveries
-- stop (the endpoint is disabled) once that key is revoked or expired. NULL: a bootstrap key,
-- or an endpoint registered before this migration; those keep working (docs/events.md).
-- host: the URL's host and port, as the dispatcher groups deliveries per destination
-- (WEBHOOK_HOST_CONCURRENCY). Written by the service; filled in here for existing endpoints
-- (WHATWG-normalized URLs: scheme "://" host [":" port] "/" …).
ALTER TABLE webhooks ADD COLUMN owner_key_id INTEGER REFERENCES api_keys (id);
ALTER TABLE webhooks ADD COLUMN host TEXT;
UPDATE webhooks SET host = substr(url, instr(url, '://') + 3, instr(substr(url, instr(url, '://') + 3), '/') - 1);
CREATE INDEX webhooks_host ON webhooks (host);
