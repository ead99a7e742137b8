-- name: staff passkeys

-- Passkeys (src/staff/passkey.service.ts, docs/api.md "Passkeys"): a person's WebAuthn credentials.
-- credential_id is the authenticator's id (base64url, unique across people), public_key its COSE
-- public key (base64url), counter the signature counter last seen (0 for most passkeys, which do
-- not count), transports the browser's hints (space-separated), last_used_at the last sign-in.
CREATE TABLE staff_passkeys (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  staff_id BIGINT NOT NULL REFERENCES staff (id),
  credential_id TEXT NOT NULL,
  public_key TEXT NOT NULL,
  counter BIGINT NOT NULL,
  transports TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  last_used_at TIMESTAMPTZ
);
CREATE UNIQUE INDEX staff_passkeys_credential ON staff_passkeys (credential_id);
CREATE INDEX staff_passkeys_staff ON staff_passkeys (staff_id, id);
-- WebAuthn challenges: single use (taking one deletes it) and short-lived, kept in the database so
-- that the instance answering the ceremony's second request need not be the one that began it.
-- staff_id is the person registering a passkey; 0 for a sign-in, whose person is not known yet.
CREATE TABLE webauthn_challenges (
  challenge TEXT PRIMARY KEY,
  staff_id BIGINT NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX webauthn_challenges_expiry ON webauthn_challenges (expires_at);
