-- name: idempotency keys

CREATE TABLE idempotency_keys (
  subject TEXT NOT NULL,
  operation TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  status INTEGER,
  body TEXT,
  location TEXT,
  created_at BIGINT NOT NULL, -- ms since the epoch, as in SQLite
  PRIMARY KEY (subject, operation, key)
);
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
