-- name: catalogue: description, tags, price, timestamps, search, sorts, order price, stock value

ALTER TABLE pets ADD COLUMN description TEXT;
ALTER TABLE pets ADD COLUMN tags TEXT NOT NULL DEFAULT '[]'; -- JSON array, in the order given
ALTER TABLE pets ADD COLUMN price_amount INTEGER CHECK (price_amount >= 0); -- minor units
ALTER TABLE pets ADD COLUMN price_currency TEXT; -- ISO 4217: STORE_CURRENCY when the price was set
ALTER TABLE pets ADD COLUMN created_at TEXT;
ALTER TABLE pets ADD COLUMN updated_at TEXT;
-- Written by the pets domain (pets/pet.search.ts): the folded words search matches, and the
-- folded name sort=name orders by. NULL on the rows of the release before (indexUnindexedPets
-- writes them at start-up; pets_unindexed finds them).
ALTER TABLE pets ADD COLUMN search_text TEXT;
ALTER TABLE pets ADD COLUMN name_key TEXT;
CREATE INDEX pets_unindexed ON pets (id) WHERE search_text IS NULL;

-- Existing pets: createdAt is their pet.created event's time while the feed still holds it,
-- else their earliest event's, else now; updatedAt their latest event's (docs/api.md).
CREATE TEMP TABLE pet_times AS
  SELECT json_extract(data, '$.id') AS pet_id,
         min(CASE WHEN type = 'pet.created' THEN created_at END) AS created,
         min(created_at) AS earliest,
         max(created_at) AS latest
  FROM events WHERE type IN ('pet.created', 'pet.updated') GROUP BY 1;
CREATE UNIQUE INDEX temp.pet_times_pet ON pet_times (pet_id);
UPDATE pets SET created_at = coalesce((SELECT coalesce(created, earliest) FROM pet_times WHERE pet_id = pets.id), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
UPDATE pets SET updated_at = max(created_at, coalesce((SELECT latest FROM pet_times WHERE pet_id = pets.id), created_at));
DROP TABLE temp.pet_times;

-- Search: FTS5 over search_text (the external content is pets), live pets only, kept by
-- triggers. The text is folded already; remove_diacritics 2 folds what a query might still
-- carry. prefix='1 2 3' keeps prefix indexes for the short prefixes, whose matches are many.
-- detail=none: no positions, as no query needs them.
CREATE VIRTUAL TABLE pets_fts USING fts5(
  search_text, content = 'pets', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3', detail = none
);
CREATE TRIGGER pets_fts_insert AFTER INSERT ON pets WHEN NEW.deleted_at IS NULL AND NEW.search_text IS NOT NULL BEGIN
  INSERT INTO pets_fts (rowid, search_text) VALUES (NEW.id, NEW.search_text);
END;
CREATE TRIGGER pets_fts_update AFTER UPDATE OF search_text, deleted_at ON pets
  WHEN OLD.search_text IS NOT NEW.search_text OR (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL) BEGIN
  INSERT INTO pets_fts (pets_fts, rowid, search_text) SELECT 'delete', OLD.id, OLD.search_text WHERE OLD.deleted_at IS NULL AND OLD.search_text IS NOT NULL;
  INSERT INTO pets_fts (rowid, search_text) SELECT NEW.id, NEW.search_text WHERE NEW.deleted_at IS NULL AND NEW.search_text IS NOT NULL;
END;
CREATE TRIGGER pets_fts_delete AFTER DELETE ON pets WHEN OLD.deleted_at IS NULL AND OLD.search_text IS NOT NULL BEGIN
  INSERT INTO pets_fts (pets_fts, rowid, search_text) VALUES ('delete', OLD.id, OLD.search_text);
END;

-- The tag filter: one row per tag of a live pet, written by the pet workflows; the primary
-- key walks one tag's pets in id order.
CREATE TABLE pet_tags (
  tag TEXT NOT NULL,
  pet_id INTEGER NOT NULL REFERENCES pets (id),
  PRIMARY KEY (tag, pet_id)
) STRICT, WITHOUT ROWID;

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
ALTER TABLE orders ADD COLUMN price_amount INTEGER;
ALTER TABLE orders ADD COLUMN price_currency TEXT;

-- GET /store/inventory's availableValue: the prices of live available pets summed per
-- currency, kept by triggers in the transaction of every change, like the counts.
CREATE TABLE pet_stock_value (currency TEXT PRIMARY KEY, amount INTEGER NOT NULL) STRICT, WITHOUT ROWID;
CREATE TRIGGER pets_stock_value_insert AFTER INSERT ON pets
  WHEN NEW.deleted_at IS NULL AND NEW.status = 'available' AND NEW.price_amount IS NOT NULL BEGIN
  INSERT INTO pet_stock_value (currency, amount) VALUES (NEW.price_currency, NEW.price_amount)
    ON CONFLICT (currency) DO UPDATE SET amount = amount + excluded.amount;
END;
CREATE TRIGGER pets_stock_value_update AFTER UPDATE OF status, deleted_at, price_amount, price_currency ON pets BEGIN
  UPDATE pet_stock_value SET amount = amount - OLD.price_amount
    WHERE currency = OLD.price_currency AND OLD.deleted_at IS NULL AND OLD.status = 'available' AND OLD.price_amount IS NOT NULL;
  INSERT INTO pet_stock_value (currency, amount)
    SELECT NEW.price_currency, NEW.price_amount WHERE NEW.deleted_at IS NULL AND NEW.status = 'available' AND NEW.price_amount IS NOT NULL
    ON CONFLICT (currency) DO UPDATE SET amount = amount + excluded.amount;
END;
CREATE TRIGGER pets_stock_value_delete AFTER DELETE ON pets
  WHEN OLD.deleted_at IS NULL AND OLD.status = 'available' AND OLD.price_amount IS NOT NULL BEGIN
  UPDATE pet_stock_value SET amount = amount - OLD.price_amount WHERE currency = OLD.price_currency;
END;
