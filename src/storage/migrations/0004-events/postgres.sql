-- name: events (transactional outbox)

CREATE TABLE events (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  type TEXT NOT NULL,
  data TEXT NOT NULL, -- the resource as JSON text, byte for byte as recorded (jsonb would reorder keys)
  created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX events_type_id ON events (type, id);
CREATE INDEX events_created_at ON events (created_at);
