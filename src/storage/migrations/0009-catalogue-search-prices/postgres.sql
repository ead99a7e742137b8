-- name: catalogue: description, tags, price, timestamps, search, sorts, order price, stock value

-- New columns are nullable or defaulted: instances of the previous release keep inserting and
-- updating pets during a rolling deploy (their rows get indexed by indexUnindexedPets).
ALTER TABLE pets
  ADD COLUMN description TEXT,
  ADD COLUMN tags TEXT NOT NULL DEFAULT '[]', -- JSON array, in the order given
  ADD COLUMN price_amount BIGINT CHECK (price_amount >= 0), -- minor units
  ADD COLUMN price_currency TEXT, -- ISO 4217: STORE_CURRENCY when the price was set
  ADD COLUMN created_at TIMESTAMPTZ,
  ADD COLUMN updated_at TIMESTAMPTZ,
  -- Written by the pets domain (pets/pet.search.ts): the folded words search matches, and the
  -- folded name sort=name orders by, compared byte by byte as SQLite does (COLLATE "C").
  ADD COLUMN search_text TEXT,
  ADD COLUMN name_key TEXT COLLATE "C",
  -- The words as lexemes, taken as written (no parser, no dictionary, no extension): the
  -- normalization is the one in JS, so both engines match the same words.
  ADD COLUMN search tsvector GENERATED ALWAYS AS (array_to_tsvector(string_to_array(search_text, ' '))) STORED;
CREATE INDEX pets_unindexed ON pets (id) WHERE search_text IS NULL;

-- Existing pets: createdAt is their pet.created event's time while the feed still holds it,
-- else their earliest event's, else now; updatedAt their latest event's (docs/api.md).
UPDATE pets SET created_at = coalesce(t.created, t.earliest), updated_at = t.latest
FROM (SELECT (data::jsonb ->> 'id')::bigint AS pet_id,
             min(created_at) FILTER (WHERE type = 'pet.created') AS created,
             min(created_at) AS earliest,
             max(created_at) AS latest
      FROM events WHERE type IN ('pet.created', 'pet.updated') GROUP BY 1) AS t
WHERE t.pet_id = pets.id;
UPDATE pets SET created_at = coalesce(created_at, now()), updated_at = greatest(coalesce(updated_at, created_at, now()), coalesce(created_at, now()));
ALTER TABLE pets ALTER COLUMN created_at SET DEFAULT now(), ALTER COLUMN updated_at SET DEFAULT now();

-- Search: a GIN index over the stored tsvector of live pets. Without fastupdate: its pending
-- list (up to 4 MB of recent inserts, unsorted) is read in full by every search, 30-200 ms
-- at 200,000 pets whatever the matches (docs/performance.md); each insert adds its few
-- words to the index itself instead.
CREATE INDEX pets_live_search ON pets USING gin (search) WITH (fastupdate = off) WHERE deleted_at IS NULL;

-- The tag filter: one row per tag of a live pet, written by the pet workflows; the primary
-- key walks one tag's pets in id order.
CREATE TABLE pet_tags (
  tag TEXT NOT NULL,
  pet_id BIGINT NOT NULL REFERENCES pets (id),
  PRIMARY KEY (tag, pet_id)
);

-- sort=name|price|createdAt (either direction) with no filter, status, categoryId or both: one
-- partial index each, (filters…, sort key, id), walked forwards or backwards from the keyset
-- position (sql.pet-list.ts writes the same key expressions).
CREATE INDEX pets_live_name ON pets (name_key, id) WHERE deleted_at IS NULL;
CREATE INDEX pets_live_status_name ON pets (status, name_key, id) WHERE deleted_at IS NULL;
CREATE INDEX pets_live_category_name ON pets (category_id, name_key, id) WHERE deleted_at IS NULL;
CREATE INDEX pets_live_category_status_name ON pets (category_id, status, name_key, id) WHERE deleted_at IS NULL;
CREATE INDEX pets_live_price ON pets (coalesce(price_amount, 9007199254740991), id) WHERE deleted_at IS NULL;
CREATE INDEX pets_live_status_price ON pets (status, coalesce(price_amount, 9007199254740991), id) WHERE deleted_at IS NULL;
CREATE INDEX pets_live_category_price ON pets (category_id, coalesce(price_amount, 9007199254740991), id) WHERE deleted_at IS NULL;
CREATE INDEX pets_live_category_status_price ON pets (category_id, status, coalesce(price_amount, 9007199254740991), id) WHERE deleted_at IS NULL;
CREATE INDEX pets_live_created ON pets (created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX pets_live_status_created ON pets (status, created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX pets_live_category_created ON pets (category_id, created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX pets_live_category_status_created ON pets (category_id, status, created_at, id) WHERE deleted_at IS NULL;

-- Orders keep the price their pet had when they were placed.
ALTER TABLE orders ADD COLUMN price_amount BIGINT, ADD COLUMN price_currency TEXT;

-- GET /store/inventory's availableValue: the prices of live available pets summed per
-- currency, kept by statement-level triggers in the transaction of every change, like the
-- counts. Like the counts (migration 8), each currency's sum is kept in up to 128 slot rows:
-- a transaction adds to the slot of its connection (1 + pg_backend_pid() % 128), so two
-- creates of priced pets do not wait for each other's COMMIT on one row per currency; the
-- read sums the slots in one statement. They fire after the inventory's (triggers fire in
-- name order), so the locks go pet → inventory slot → value slots, in currency order.
CREATE TABLE pet_stock_value (
  currency TEXT NOT NULL,
  slot SMALLINT NOT NULL CHECK (slot BETWEEN 1 AND 128),
  amount BIGINT NOT NULL,
  PRIMARY KEY (currency, slot)
);
CREATE FUNCTION pet_stock_value_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO pet_stock_value (currency, slot, amount)
      SELECT price_currency, 1 + pg_backend_pid() % 128, sum(price_amount) FROM came
      WHERE deleted_at IS NULL AND status = 'available' AND price_amount IS NOT NULL GROUP BY 1 ORDER BY 1
      ON CONFLICT (currency, slot) DO UPDATE SET amount = pet_stock_value.amount + excluded.amount;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO pet_stock_value (currency, slot, amount)
      SELECT currency, 1 + pg_backend_pid() % 128, sum(amount) FROM (
        SELECT price_currency AS currency, price_amount AS amount FROM came WHERE deleted_at IS NULL AND status = 'available' AND price_amount IS NOT NULL
        UNION ALL
        SELECT price_currency, -price_amount FROM gone WHERE deleted_at IS NULL AND status = 'available' AND price_amount IS NOT NULL
      ) AS d GROUP BY 1 HAVING sum(amount) <> 0 ORDER BY 1
      ON CONFLICT (currency, slot) DO UPDATE SET amount = pet_stock_value.amount + excluded.amount;
  ELSE
    -- A slot may go below zero (the pet was added through another slot): only the sum counts.
    INSERT INTO pet_stock_value (currency, slot, amount)
      SELECT price_currency, 1 + pg_backend_pid() % 128, -sum(price_amount) FROM gone
      WHERE deleted_at IS NULL AND status = 'available' AND price_amount IS NOT NULL GROUP BY 1 ORDER BY 1
      ON CONFLICT (currency, slot) DO UPDATE SET amount = pet_stock_value.amount + excluded.amount;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER pets_stock_value_insert AFTER INSERT ON pets REFERENCING NEW TABLE AS came
  FOR EACH STATEMENT EXECUTE FUNCTION pet_stock_value_add();
CREATE TRIGGER pets_stock_value_update AFTER UPDATE ON pets REFERENCING OLD TABLE AS gone NEW TABLE AS came
  FOR EACH STATEMENT EXECUTE FUNCTION pet_stock_value_add();
CREATE TRIGGER pets_stock_value_delete AFTER DELETE ON pets REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION pet_stock_value_add();
