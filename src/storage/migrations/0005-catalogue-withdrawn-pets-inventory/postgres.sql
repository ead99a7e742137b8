-- name: catalogue: withdrawn pets, inventory, deletable categories, key expiry

-- A withdrawn pet (DELETE /pets/{id}) keeps its row: orders still name it, and its id is
-- never used again. Everything that reads pets reads the live ones only. (ALTER TABLE also
-- holds the table's lock until COMMIT, so the inventory counted below stays exact.)
ALTER TABLE pets ADD COLUMN deleted_at TIMESTAMPTZ;
-- One partial index per filter combination of listPets, each answering
-- "… AND id > $n ORDER BY id LIMIT $m" with one range scan over live pets only:
--   no filter → pets_live_id, status → pets_live_status_id,
--   categoryId → pets_live_category_id, both → pets_live_category_status_id.
-- pets_live_category_id also answers "does a live pet belong to this category?".
-- pets_status_id stays while instances of the previous release may still list by status
-- with it during a rolling deploy (docs/deploy.md); a later migration can drop it.
CREATE INDEX pets_live_id ON pets (id) WHERE deleted_at IS NULL;
CREATE INDEX pets_live_status_id ON pets (status, id) WHERE deleted_at IS NULL;
CREATE INDEX pets_live_category_id ON pets (category_id, id) WHERE deleted_at IS NULL;
CREATE INDEX pets_live_category_status_id ON pets (category_id, status, id) WHERE deleted_at IS NULL;

-- GET /store/inventory: live pets per status, kept by triggers in the transaction of every
-- change of a pet's status or withdrawal, whoever makes it. One row with three columns: a
-- change moving a pet between two statuses updates (and locks) one row, so two opposite
-- moves cannot deadlock on two rows taken in opposite orders.
CREATE TABLE pet_inventory (
  id SMALLINT PRIMARY KEY CHECK (id = 1),
  available BIGINT NOT NULL,
  pending BIGINT NOT NULL,
  sold BIGINT NOT NULL
);
INSERT INTO pet_inventory (id, available, pending, sold)
  SELECT 1, count(*) FILTER (WHERE status = 'available'), count(*) FILTER (WHERE status = 'pending'), count(*) FILTER (WHERE status = 'sold')
  FROM pets;
-- Statement-level triggers over the transition tables: one UPDATE of the row per statement,
-- however many pets it touched (a row-level trigger would update the one row once per pet,
-- and a bulk INSERT of 100,000 pets would then walk an ever longer chain of row versions).
CREATE FUNCTION pet_inventory_add(a BIGINT, p BIGINT, s BIGINT) RETURNS void LANGUAGE sql AS $$
  UPDATE pet_inventory SET available = available + a, pending = pending + p, sold = sold + s
  WHERE id = 1 AND (a <> 0 OR p <> 0 OR s <> 0)
$$;
CREATE FUNCTION pets_inventory_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pet_inventory_add(count(*) FILTER (WHERE status = 'available'), count(*) FILTER (WHERE status = 'pending'), count(*) FILTER (WHERE status = 'sold'))
  FROM came WHERE deleted_at IS NULL;
  RETURN NULL;
END
$$;
CREATE FUNCTION pets_inventory_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pet_inventory_add(n.a - o.a, n.p - o.p, n.s - o.s)
  FROM (SELECT count(*) FILTER (WHERE status = 'available') AS a, count(*) FILTER (WHERE status = 'pending') AS p, count(*) FILTER (WHERE status = 'sold') AS s
        FROM came WHERE deleted_at IS NULL) AS n,
       (SELECT count(*) FILTER (WHERE status = 'available') AS a, count(*) FILTER (WHERE status = 'pending') AS p, count(*) FILTER (WHERE status = 'sold') AS s
        FROM gone WHERE deleted_at IS NULL) AS o;
  RETURN NULL;
END
$$;
CREATE FUNCTION pets_inventory_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pet_inventory_add(-count(*) FILTER (WHERE status = 'available'), -count(*) FILTER (WHERE status = 'pending'), -count(*) FILTER (WHERE status = 'sold'))
  FROM gone WHERE deleted_at IS NULL;
  RETURN NULL;
END
$$;
CREATE TRIGGER pets_inventory_insert AFTER INSERT ON pets REFERENCING NEW TABLE AS came
  FOR EACH STATEMENT EXECUTE FUNCTION pets_inventory_on_insert();
CREATE TRIGGER pets_inventory_update AFTER UPDATE ON pets REFERENCING OLD TABLE AS gone NEW TABLE AS came
  FOR EACH STATEMENT EXECUTE FUNCTION pets_inventory_on_update();
CREATE TRIGGER pets_inventory_delete AFTER DELETE ON pets REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION pets_inventory_on_delete();

-- A deleted category keeps its row too (withdrawn pets still name it) and frees its name:
-- names are unique among live categories only.
ALTER TABLE categories ADD COLUMN deleted_at TIMESTAMPTZ;
CREATE UNIQUE INDEX categories_name_live ON categories (lower(name)) WHERE deleted_at IS NULL;
DROP INDEX categories_name_ci;

-- Keys may expire (checked where a key is verified; NULL = never).
ALTER TABLE api_keys ADD COLUMN expires_at TIMESTAMPTZ;
