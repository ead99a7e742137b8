-- name: events (transactional outbox)

CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX events_type_id ON events (type, id);
CREATE INDEX events_created_at ON events (created_at);
