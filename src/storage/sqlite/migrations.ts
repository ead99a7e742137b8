// Numbered, append-only. PostgreSQL's list (../postgres/migrations.ts) uses the same numbers.
import type { Migration } from '../migration.ts';

export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'pets, categories, api keys',
    sql: `
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
      CREATE TABLE categories (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL UNIQUE COLLATE NOCASE
      ) STRICT;
      INSERT INTO categories (id, name) VALUES
        (1, 'Dogs'), (2, 'Cats'), (3, 'Birds'), (4, 'Fish'), (5, 'Reptiles'), (6, 'Small mammals');
      CREATE TABLE pets (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        category_id INTEGER NOT NULL REFERENCES categories (id),
        status TEXT NOT NULL CHECK (status IN ('available', 'pending', 'sold'))
      ) STRICT;
      CREATE INDEX pets_status_id ON pets (status, id);
      CREATE TABLE api_keys (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        prefix TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        scopes TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      ) STRICT;
    `,
  },
  {
    version: 2,
    name: 'store orders',
    sql: `
      CREATE TABLE orders (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        pet_id INTEGER NOT NULL REFERENCES pets (id),
        status TEXT NOT NULL CHECK (status IN ('placed', 'approved', 'delivered', 'cancelled')),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX orders_status_id ON orders (status, id);
      CREATE INDEX orders_pet_id_id ON orders (pet_id, id);
    `,
  },
  {
    version: 3,
    name: 'idempotency keys',
    sql: `
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
    `,
  },
  {
    version: 4,
    name: 'events (transactional outbox)',
    sql: `
      CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX events_type_id ON events (type, id);
      CREATE INDEX events_created_at ON events (created_at);
    `,
  },
  {
    version: 5,
    name: 'catalogue: withdrawn pets, inventory, deletable categories, key expiry',
    rebuildsTables: true,
    sql: `
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
    `,
  },
  {
    version: 6,
    name: 'webhook endpoints and deliveries',
    sql: `
      CREATE TABLE webhooks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        url TEXT NOT NULL,
        events TEXT, -- space-separated event types; NULL = every type, future ones included
        description TEXT,
        enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
        secret TEXT NOT NULL, -- the signing secret, encrypted (webhooks/webhook.secret-box.ts)
        previous_secret TEXT, -- the one before the last rotation, still signing until previous_secret_until
        previous_secret_until TEXT,
        failing_since TEXT, -- first failed attempt since the last success; NULL when the last attempt succeeded
        claimed_at TEXT, -- last time a dispatcher claimed work for it: the least recent goes first
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;
      CREATE TABLE webhook_deliveries (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        type TEXT NOT NULL CHECK (type IN ('attempt', 'webhook.disabled')),
        event_id INTEGER, -- no foreign key: events are purged on their own schedule
        attempt INTEGER,
        status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        http_status INTEGER,
        duration_ms INTEGER,
        error TEXT,
        next_attempt_at TEXT,
        lease_until TEXT,
        lease_token TEXT,
        attempted_at TEXT,
        created_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, id);
      CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, event_id) WHERE status = 'pending';
      CREATE INDEX webhook_deliveries_created_at ON webhook_deliveries (created_at);
    `,
  },
  {
    version: 7,
    name: 'webhook subscriptions as a relation',
    sql: `
      -- Which endpoints receive which events: one row per endpoint and event type it lists (in the
      -- order it listed them), or all_events for an endpoint that takes every type, future ones
      -- included. The outbox joins on it; the primary key serves its lookup by type.
      -- webhooks.events (space-separated) stays, and is still written, for the release before this
      -- one (during a rollout, or after a rollback); a later migration drops it.
      ALTER TABLE webhooks ADD COLUMN all_events INTEGER NOT NULL DEFAULT 0 CHECK (all_events IN (0, 1));
      CREATE TABLE webhook_subscriptions (
        event_type TEXT NOT NULL,
        webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        PRIMARY KEY (event_type, webhook_id)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX webhook_subscriptions_webhook ON webhook_subscriptions (webhook_id, position);
      UPDATE webhooks SET all_events = 1 WHERE events IS NULL;
      INSERT INTO webhook_subscriptions (event_type, webhook_id, position)
        SELECT t.value, w.id, t.key FROM webhooks w, json_each('["' || replace(w.events, ' ', '","') || '"]') AS t WHERE w.events IS NOT NULL;
    `,
  },
  {
    version: 8,
    name: 'event order columns; claims tied to their instance',
    sql: `
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
    `,
  },
  {
    version: 9,
    name: 'catalogue: description, tags, price, timestamps, search, sorts, order price, stock value',
    sql: `
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
    `,
  },
  {
    version: 10,
    name: 'pet photos',
    sql: `
      -- Photos are content-addressed: photo_blobs holds each distinct display image (named by the
      -- SHA-256 of its bytes) and its thumbnail once, however many animals show it; refs counts the
      -- pet_photos rows that name it, and the blob is deleted in the transaction that drops the last
      -- one (src/photos/photo.service.ts), so no blob outlives its last photo.
      CREATE TABLE photo_blobs (
        hash TEXT PRIMARY KEY,
        media_type TEXT NOT NULL CHECK (media_type IN ('image/jpeg', 'image/png', 'image/webp')),
        width INTEGER NOT NULL,
        height INTEGER NOT NULL,
        size INTEGER NOT NULL,
        image BLOB NOT NULL,
        thumbnail BLOB NOT NULL,
        refs INTEGER NOT NULL CHECK (refs > 0),
        created_at TEXT NOT NULL
      ) STRICT;
      CREATE TABLE pet_photos (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        pet_id INTEGER NOT NULL REFERENCES pets (id),
        hash TEXT NOT NULL REFERENCES photo_blobs (hash),
        created_at TEXT NOT NULL,
        UNIQUE (pet_id, hash)
      ) STRICT;
      CREATE INDEX pet_photos_hash ON pet_photos (hash);
      -- The pet's photos (hashes, space-separated, oldest first), kept with the pet by the photo
      -- workflows, so that every read of a pet has its photoUrls without a join; NULL: none.
      ALTER TABLE pets ADD COLUMN photos TEXT;
    `,
  },
  {
    version: 11,
    name: 'key delegation tree',
    sql: `
      -- The key tree (docs/api.md, "Who may revoke whom"): the key that made each key (NULL: a
      -- top-level key — made by the operator, a bootstrap key or the first-run key, or made before
      -- keys recorded their maker), and whether it is an owner key, which manages every key.
      ALTER TABLE api_keys ADD COLUMN parent_id INTEGER REFERENCES api_keys (id);
      ALTER TABLE api_keys ADD COLUMN owner INTEGER NOT NULL DEFAULT 0 CHECK (owner IN (0, 1));
      CREATE INDEX api_keys_parent ON api_keys (parent_id) WHERE parent_id IS NOT NULL;
      -- The first-run key (the first key, named so by main.ts) was the owner's all-scope key.
      UPDATE api_keys SET owner = 1 WHERE name = 'first-run' AND id = (SELECT min(id) FROM api_keys);
    `,
  },
  {
    version: 12,
    name: 'webhook endpoints: the key that owns each, and its destination host',
    sql: `
      -- owner_key_id: the API key that registered the endpoint or made its last change; deliveries
      -- stop (the endpoint is disabled) once that key is revoked or expired. NULL: a bootstrap key,
      -- or an endpoint registered before this migration; those keep working (docs/events.md).
      -- host: the URL's host and port, as the dispatcher groups deliveries per destination
      -- (WEBHOOK_HOST_CONCURRENCY). Written by the service; filled in here for existing endpoints
      -- (WHATWG-normalized URLs: scheme "://" host [":" port] "/" …).
      ALTER TABLE webhooks ADD COLUMN owner_key_id INTEGER REFERENCES api_keys (id);
      ALTER TABLE webhooks ADD COLUMN host TEXT;
      UPDATE webhooks SET host = substr(url, instr(url, '://') + 3, instr(substr(url, instr(url, '://') + 3), '/') - 1);
      CREATE INDEX webhooks_host ON webhooks (host);
    `,
  },
  {
    version: 15,
    name: 'health log and due list',
    sql: `
      -- The health log (src/health/health.service.ts, docs/api.md "Health log"): append-only; a wrong
      -- record is voided (voided_at and void_reason, set once, together), never changed or deleted.
      -- given_on is the day of the care (the API's "date").
      CREATE TABLE health_records (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        pet_id INTEGER NOT NULL REFERENCES pets (id),
        kind TEXT NOT NULL CHECK (kind IN ('vaccination', 'deworming', 'exam', 'treatment', 'note')),
        given_on TEXT NOT NULL,
        name TEXT NOT NULL,
        batch TEXT,
        given_by TEXT NOT NULL,
        notes TEXT,
        next_due TEXT,
        recorded_at TEXT NOT NULL,
        voided_at TEXT,
        void_reason TEXT,
        CHECK ((voided_at IS NULL) = (void_reason IS NULL))
      ) STRICT;
      CREATE INDEX health_records_log ON health_records (pet_id, given_on, id);
      CREATE INDEX health_records_live_kind ON health_records (pet_id, kind, given_on, id) WHERE voided_at IS NULL;
      -- The due list (GET /v1/health/due): per pet and kind, the latest record that is not voided,
      -- when it has a next_due; kept by the health workflows in the transaction of every append and
      -- void, and walked in (next_due, record_id) order.
      CREATE TABLE health_due (
        pet_id INTEGER NOT NULL REFERENCES pets (id),
        kind TEXT NOT NULL,
        record_id INTEGER NOT NULL REFERENCES health_records (id),
        next_due TEXT NOT NULL,
        PRIMARY KEY (pet_id, kind)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX health_due_next ON health_due (next_due, record_id);
      -- Scopes health:read and health:write (docs/api.md, "Authentication"): an owner key gets each
      -- as it holds pets:read and pets:write, as the default set of a new key does.
      UPDATE api_keys SET scopes = scopes || ' health:read'
        WHERE owner = 1 AND ' ' || scopes || ' ' LIKE '% pets:read %' AND ' ' || scopes || ' ' NOT LIKE '% health:read %';
      UPDATE api_keys SET scopes = scopes || ' health:write'
        WHERE owner = 1 AND ' ' || scopes || ' ' LIKE '% pets:write %' AND ' ' || scopes || ' ' NOT LIKE '% health:write %';
    `,
  },
];
