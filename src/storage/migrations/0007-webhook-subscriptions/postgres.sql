-- name: webhook subscriptions as a relation

-- Which endpoints receive which events: one row per endpoint and event type it lists (in the
-- order it listed them), or all_events for an endpoint that takes every type, future ones
-- included. The outbox joins on it; the primary key serves its lookup by type.
-- webhooks.events (space-separated) stays, and is still written, for instances of the release
-- before this one (docs/deploy.md); a later migration drops it.
ALTER TABLE webhooks ADD COLUMN all_events BOOLEAN NOT NULL DEFAULT false;
CREATE TABLE webhook_subscriptions (
  event_type TEXT NOT NULL,
  webhook_id BIGINT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  PRIMARY KEY (event_type, webhook_id)
);
CREATE INDEX webhook_subscriptions_webhook ON webhook_subscriptions (webhook_id, position);
UPDATE webhooks SET all_events = true WHERE events IS NULL;
INSERT INTO webhook_subscriptions (event_type, webhook_id, position)
  SELECT t.type, w.id, t.n FROM webhooks w, unnest(string_to_array(w.events, ' ')) WITH ORDINALITY AS t(type, n) WHERE w.events IS NOT NULL;
