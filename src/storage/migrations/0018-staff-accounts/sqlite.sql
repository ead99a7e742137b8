-- name: staff accounts and sessions

-- Staff accounts (src/staff/, docs/api.md "Staff and sessions"): a person with a role, signing in
-- with an e-mail address (kept lower-cased, unique) and a password (an Argon2id PHC string; null
-- until the invitation is taken up, or after a reset). An invitation or reset link is a one-time
-- token, of which only the SHA-256 is kept, with its expiry; taking it up clears both.
CREATE TABLE staff (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  email TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('owner', 'manager', 'clerk', 'viewer')),
  state TEXT NOT NULL CHECK (state IN ('invited', 'active', 'deactivated')),
  password_hash TEXT,
  invitation_hash TEXT,
  invitation_expires_at TEXT,
  created_at TEXT NOT NULL,
  last_sign_in_at TEXT,
  CHECK ((invitation_hash IS NULL) = (invitation_expires_at IS NULL))
) STRICT;
CREATE UNIQUE INDEX staff_email ON staff (email);
CREATE UNIQUE INDEX staff_invitation ON staff (invitation_hash) WHERE invitation_hash IS NOT NULL;
-- Sessions: the cookie's token is kept as its SHA-256 only. A session ends at ended_at (sign-out,
-- revocation, deactivation, a password change or reset), after SESSION_IDLE_MINUTES without a
-- request (last_seen_at), or at expires_at (SESSION_MAX_HOURS after sign-in).
CREATE TABLE staff_sessions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  staff_id INTEGER NOT NULL REFERENCES staff (id),
  token_hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_seen_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  ended_at TEXT
) STRICT;
CREATE UNIQUE INDEX staff_sessions_token ON staff_sessions (token_hash);
CREATE INDEX staff_sessions_staff ON staff_sessions (staff_id, id);
-- Scopes staff:read and staff:admin (docs/api.md, "Authentication"): an owner key that manages
-- keys manages staff too.
UPDATE api_keys SET scopes = scopes || ' staff:read staff:admin'
  WHERE owner = 1 AND ' ' || scopes || ' ' LIKE '% keys:admin %' AND ' ' || scopes || ' ' NOT LIKE '% staff:admin %';
