-- name: webhook endpoints and deliveries

CREATE TABLE webhooks (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  url TEXT NOT NULL,
  events TEXT, -- space-separated event types; NULL = every type, future ones included
  description TEXT,
  enabled BOOLEAN NOT NULL,
  secret TEXT NOT NULL, -- the signing secret, encrypted (webhooks/webhook.secret-box.ts)
  previous_secret TEXT, -- the one before the last rotation, still signing until previous_secret_until
  previous_secret_until TIMESTAMPTZ,
  failing_since TIMESTAMPTZ, -- first failed attempt since the last success; NULL when the last attempt succeeded
  claimed_at TIMESTAMPTZ, -- last time a dispatcher claimed work for it: the least recent goes first
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE webhook_deliveries (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook_id BIGINT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  type TEXT NOT NULL CHECK (type IN ('attempt', 'webhook.disabled')),
  event_id BIGINT, -- no foreign key: events are purged on their own schedule
  attempt INTEGER,
  status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  http_status INTEGER,
  duration_ms INTEGER,
  error TEXT,
  next_attempt_at TIMESTAMPTZ,
  lease_until TIMESTAMPTZ,
  lease_token TEXT,
  attempted_at TIMESTAMPTZ,
  created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, id);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, event_id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_created_at ON webhook_deliveries (created_at);
