-- name: health log and due list

-- The health log (src/health/health.service.ts, docs/api.md "Health log"): append-only; a wrong
-- record is voided (voided_at and void_reason, set once, together), never changed or deleted.
-- given_on is the day of the care (the API's "date").
CREATE TABLE health_records (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  pet_id BIGINT NOT NULL REFERENCES pets (id),
  kind TEXT NOT NULL CHECK (kind IN ('vaccination', 'deworming', 'exam', 'treatment', 'note')),
  given_on DATE NOT NULL,
  name TEXT NOT NULL,
  batch TEXT,
  given_by TEXT NOT NULL,
  notes TEXT,
  next_due DATE,
  recorded_at TIMESTAMPTZ NOT NULL,
  voided_at TIMESTAMPTZ,
  void_reason TEXT,
  CHECK ((voided_at IS NULL) = (void_reason IS NULL))
);
CREATE INDEX health_records_log ON health_records (pet_id, given_on, id);
CREATE INDEX health_records_live_kind ON health_records (pet_id, kind, given_on, id) WHERE voided_at IS NULL;
-- The due list (GET /v1/health/due): per pet and kind, the latest record that is not voided,
-- when it has a next_due; kept by the health workflows in the transaction of every append and
-- void, and walked in (next_due, record_id) order.
CREATE TABLE health_due (
  pet_id BIGINT NOT NULL REFERENCES pets (id),
  kind TEXT NOT NULL,
  record_id BIGINT NOT NULL REFERENCES health_records (id),
  next_due DATE NOT NULL,
  PRIMARY KEY (pet_id, kind)
);
CREATE INDEX health_due_next ON health_due (next_due, record_id);
-- Scopes health:read and health:write (docs/api.md, "Authentication"): an owner key gets each
-- as it holds pets:read and pets:write, as the default set of a new key does.
UPDATE api_keys SET scopes = scopes || ' health:read'
  WHERE owner AND ' ' || scopes || ' ' LIKE '% pets:read %' AND ' ' || scopes || ' ' NOT LIKE '% health:read %';
UPDATE api_keys SET scopes = scopes || ' health:write'
  WHERE owner AND ' ' || scopes || ' ' LIKE '% pets:write %' AND ' ' || scopes || ' ' NOT LIKE '% health:write %';
