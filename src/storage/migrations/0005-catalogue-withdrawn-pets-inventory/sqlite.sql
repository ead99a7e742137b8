-- name: catalogue: withdrawn pets, inventory, deletable categories, key expiry
-- rebuilds-tables: yes

-- A withdrawn pet (DELETE /pets/{id}) keeps its row: orders still name it, and its id is
-- never used again. Everything that reads pets reads the live ones only.
ALTER TABLE pets ADD COLUMN deleted_at TEXT;
-- One partial index per filter combination of listPets, each answering
-- "… AND id > ? ORDER BY id LIMIT ?" with one range scan over live pets only:
--   no filter → pets_live_id, status → pets_live_status_id,
--   categoryId → pets_live_category_id, both → pets_live_category_status_id.
-- pets_live_category_id also answers "does a live pet belong to this category?".
CREATE INDEX pets_live_id ON pets (id) WHERE deleted_at IS NULL;
CREATE INDEX pets_live_status_id ON pets (status, id) WHERE deleted_at IS NULL;
CREATE INDEX pets_live_category_id ON pets (category_id, id) WHERE deleted_at IS NULL;
CREATE INDEX pets_live_category_status_id ON pets (category_id, status, id) WHERE deleted_at IS NULL;
DROP INDEX pets_status_id;

-- GET /store/inventory: live pets per status, kept by triggers in the transaction of every
-- change of a pet's status or withdrawal, whoever makes it. One row, so a read is one lookup.
CREATE TABLE pet_inventory (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  available INTEGER NOT NULL,
  pending INTEGER NOT NULL,
  sold INTEGER NOT NULL
) STRICT;
INSERT INTO pet_inventory (id, available, pending, sold)
  SELECT 1, count(*) FILTER (WHERE status = 'available'), count(*) FILTER (WHERE status = 'pending'), count(*) FILTER (WHERE status = 'sold')
  FROM pets;
CREATE TRIGGER pets_inventory_insert AFTER INSERT ON pets WHEN NEW.deleted_at IS NULL BEGIN
  UPDATE pet_inventory SET available = available + (NEW.status = 'available'), pending = pending + (NEW.status = 'pending'), sold = sold + (NEW.status = 'sold');
END;
CREATE TRIGGER pets_inventory_update AFTER UPDATE OF status, deleted_at ON pets
  WHEN OLD.status IS NOT NEW.status OR (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL) BEGIN
  UPDATE pet_inventory SET
    available = available - (OLD.status = 'available' AND OLD.deleted_at IS NULL) + (NEW.status = 'available' AND NEW.deleted_at IS NULL),
    pending = pending - (OLD.status = 'pending' AND OLD.deleted_at IS NULL) + (NEW.status = 'pending' AND NEW.deleted_at IS NULL),
    sold = sold - (OLD.status = 'sold' AND OLD.deleted_at IS NULL) + (NEW.status = 'sold' AND NEW.deleted_at IS NULL);
END;
CREATE TRIGGER pets_inventory_delete AFTER DELETE ON pets WHEN OLD.deleted_at IS NULL BEGIN
  UPDATE pet_inventory SET available = available - (OLD.status = 'available'), pending = pending - (OLD.status = 'pending'), sold = sold - (OLD.status = 'sold');
END;

-- A deleted category keeps its row too (withdrawn pets still name it) and frees its name:
-- names are unique among live categories only. The column's UNIQUE constraint cannot be
-- dropped in SQLite, so the (small) table is rebuilt with the same ids and sequence.
CREATE TABLE categories_new (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL COLLATE NOCASE,
  deleted_at TEXT
) STRICT;
INSERT INTO categories_new (id, name) SELECT id, name FROM categories ORDER BY id;
UPDATE sqlite_sequence SET seq = max(seq, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'categories'), 0)) WHERE name = 'categories_new';
DROP TABLE categories;
ALTER TABLE categories_new RENAME TO categories;
CREATE UNIQUE INDEX categories_name_live ON categories (name) WHERE deleted_at IS NULL;

-- Keys may expire (checked where a key is verified; NULL = never).
ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
