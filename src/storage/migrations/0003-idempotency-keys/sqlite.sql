-- name: idempotency keys

CREATE TABLE idempotency_keys (
  subject TEXT NOT NULL,
  operation TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  status INTEGER,
  body TEXT,
  location TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (subject, operation, key)
) STRICT, WITHOUT ROWID;
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
