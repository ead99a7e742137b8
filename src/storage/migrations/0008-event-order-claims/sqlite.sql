-- name: event order columns; claims tied to their instance

-- The columns PostgreSQL orders events by and ties claims with (its migration 8), so that
-- both engines run the same statements. One writer at a time commits here: xid stays 0 and
-- ids alone give commit order; every in-flight claim and lease belongs to this process
-- (instance 0), and those left by a process that died are released when the service starts.
ALTER TABLE events ADD COLUMN xid INTEGER NOT NULL DEFAULT 0;
CREATE INDEX events_xid_id ON events (xid, id);
CREATE INDEX events_type_xid_id ON events (type, xid, id);
ALTER TABLE webhook_deliveries ADD COLUMN xid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE idempotency_keys ADD COLUMN instance INTEGER;
ALTER TABLE webhook_deliveries ADD COLUMN lease_instance INTEGER;
