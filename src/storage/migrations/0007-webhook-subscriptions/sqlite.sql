-- name: webhook subscriptions as a relation

-- Which endpoints receive which events: one row per endpoint and event type it lists (in the
-- order it listed them), or all_events for an endpoint that takes every type, future ones
-- included. The outbox joins on it; the primary key serves its lookup by type.
-- webhooks.events (space-separated) stays, and is still written, for the release before this
-- one (during a rollout, or after a rollback); a later migration drops it.
ALTER TABLE webhooks ADD COLUMN all_events INTEGER NOT NULL DEFAULT 0 CHECK (all_events IN (0, 1));
CREATE TABLE webhook_subscriptions (
  event_type TEXT NOT NULL,
  webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  PRIMARY KEY (event_type, webhook_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX webhook_subscriptions_webhook ON webhook_subscriptions (webhook_id, position);
UPDATE webhooks SET all_events = 1 WHERE events IS NULL;
INSERT INTO webhook_subscriptions (event_type, webhook_id, position)
  SELECT t.value, w.id, t.key FROM webhooks w, json_each('["' || replace(w.events, ' ', '","') || '"]') AS t WHERE w.events IS NOT NULL;
