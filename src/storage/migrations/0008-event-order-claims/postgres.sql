-- name: events in commit order without a lock; claims tied to their instance

-- Each event carries the id of the transaction that wrote it. Readers see only events of
-- transactions older than every one still running (pg_snapshot_xmin), in (xid, id) order:
-- commit order without the advisory lock the writers took before (docs/events.md). Rows
-- written before this migration get its transaction id, older than any later one.
ALTER TABLE events ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX events_xid_id ON events (xid, id);
CREATE INDEX events_type_xid_id ON events (type, xid, id);
-- A delivery's first attempt is written in its event's transaction: the dispatcher leases it
-- once that transaction is older than every running one, in the feed's order.
ALTER TABLE webhook_deliveries ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id();
-- The instance holding an in-flight claim or a lease: alive while it holds its session-level
-- advisory lock (postgres.instance.ts), so another instance takes over as soon as it is gone.
-- NULL (rows of the release before) counts as gone.
ALTER TABLE idempotency_keys ADD COLUMN instance INTEGER;
ALTER TABLE webhook_deliveries ADD COLUMN lease_instance INTEGER;

-- The inventory counts (migration 5) in 128 slots instead of one row: every pet insert or
-- status change updated that row and held its lock through COMMIT and its disk flush, so
-- creates committed one flush at a time even without the events lock. Each transaction now
-- updates the slot of its connection (one row, as before: no deadlock between two), and a
-- read sums the slots in one statement (one snapshot: the sum stays exact).
ALTER TABLE pet_inventory DROP CONSTRAINT pet_inventory_id_check;
ALTER TABLE pet_inventory ADD CONSTRAINT pet_inventory_slot CHECK (id BETWEEN 1 AND 128);
INSERT INTO pet_inventory (id, available, pending, sold) SELECT g, 0, 0, 0 FROM generate_series(2, 128) AS g;
CREATE OR REPLACE FUNCTION pet_inventory_add(a BIGINT, p BIGINT, s BIGINT) RETURNS void LANGUAGE sql AS $$
  UPDATE pet_inventory SET available = available + a, pending = pending + p, sold = sold + s
  WHERE id = 1 + pg_backend_pid() % 128 AND (a <> 0 OR p <> 0 OR s <> 0)
$$;
