// Numbered, append-only; the same numbers and tables as ../sqlite/migrations.ts. Every migration
// must stay additive (new tables, new nullable columns, new indexes) so that instances still
// running the previous release keep working during a rolling deploy (docs/deploy.md).
import type { Migration } from '../migration.ts';

export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'pets, categories, api keys',
    sql: `
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE categories (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name TEXT NOT NULL
      );
      -- SQLite compares names with COLLATE NOCASE; lower() gives the same case-insensitive rule.
      CREATE UNIQUE INDEX categories_name_ci ON categories (lower(name));
      INSERT INTO categories (id, name) OVERRIDING SYSTEM VALUE VALUES
        (1, 'Dogs'), (2, 'Cats'), (3, 'Birds'), (4, 'Fish'), (5, 'Reptiles'), (6, 'Small mammals');
      ALTER TABLE categories ALTER COLUMN id RESTART WITH 7;
      CREATE TABLE pets (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name TEXT NOT NULL,
        category_id BIGINT NOT NULL REFERENCES categories (id),
        status TEXT NOT NULL CHECK (status IN ('available', 'pending', 'sold'))
      );
      CREATE INDEX pets_status_id ON pets (status, id);
      CREATE TABLE api_keys (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name TEXT NOT NULL,
        prefix TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        scopes TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL,
        revoked_at TIMESTAMPTZ
      );
    `,
  },
  {
    version: 2,
    name: 'store orders',
    sql: `
      CREATE TABLE orders (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        pet_id BIGINT NOT NULL REFERENCES pets (id),
        status TEXT NOT NULL CHECK (status IN ('placed', 'approved', 'delivered', 'cancelled')),
        created_at TIMESTAMPTZ NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL
      );
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
        created_at BIGINT NOT NULL, -- ms since the epoch, as in SQLite
        PRIMARY KEY (subject, operation, key)
      );
      CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
    `,
  },
  {
    version: 4,
    name: 'events (transactional outbox)',
    sql: `
      CREATE TABLE events (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        type TEXT NOT NULL,
        data TEXT NOT NULL, -- the resource as JSON text, byte for byte as recorded (jsonb would reorder keys)
        created_at TIMESTAMPTZ NOT NULL
      );
      CREATE INDEX events_type_id ON events (type, id);
      CREATE INDEX events_created_at ON events (created_at);
    `,
  },
  {
    version: 5,
    name: 'catalogue: withdrawn pets, inventory, deletable categories, key expiry',
    sql: `
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
    `,
  },
  {
    version: 6,
    name: 'webhook endpoints and deliveries',
    sql: `
      CREATE TABLE webhooks (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        url TEXT NOT NULL,
        events TEXT, -- space-separated event types; NULL = every type, future ones included
        description TEXT,
        enabled BOOLEAN NOT NULL,
        secret TEXT NOT NULL, -- the signing secret, encrypted (webhooks/webhook.secret-box.ts)
        previous_secret TEXT, -- the one before the last rotation, still signing until previous_secret_until
        previous_secret_until TIMESTAMPTZ,
        failing_since TIMESTAMPTZ, -- first failed attempt since the last success; NULL when the last attempt succeeded
        claimed_at TIMESTAMPTZ, -- last time a dispatcher claimed work for it: the least recent goes first
        created_at TIMESTAMPTZ NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL
      );
      CREATE TABLE webhook_deliveries (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        webhook_id BIGINT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        type TEXT NOT NULL CHECK (type IN ('attempt', 'webhook.disabled')),
        event_id BIGINT, -- no foreign key: events are purged on their own schedule
        attempt INTEGER,
        status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        http_status INTEGER,
        duration_ms INTEGER,
        error TEXT,
        next_attempt_at TIMESTAMPTZ,
        lease_until TIMESTAMPTZ,
        lease_token TEXT,
        attempted_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL
      );
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
      -- webhooks.events (space-separated) stays, and is still written, for instances of the release
      -- before this one (docs/deploy.md); a later migration drops it.
      ALTER TABLE webhooks ADD COLUMN all_events BOOLEAN NOT NULL DEFAULT false;
      CREATE TABLE webhook_subscriptions (
        event_type TEXT NOT NULL,
        webhook_id BIGINT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        PRIMARY KEY (event_type, webhook_id)
      );
      CREATE INDEX webhook_subscriptions_webhook ON webhook_subscriptions (webhook_id, position);
      UPDATE webhooks SET all_events = true WHERE events IS NULL;
      INSERT INTO webhook_subscriptions (event_type, webhook_id, position)
        SELECT t.type, w.id, t.n FROM webhooks w, unnest(string_to_array(w.events, ' ')) WITH ORDINALITY AS t(type, n) WHERE w.events IS NOT NULL;
    `,
  },
  {
    version: 8,
    name: 'events in commit order without a lock; claims tied to their instance',
    sql: `
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
    `,
  },
  {
    version: 9,
    name: 'catalogue: description, tags, price, timestamps, search, sorts, order price, stock value',
    sql: `
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
    `,
  },
  {
    version: 10,
    name: 'pet photos',
    sql: `
      -- Photos are content-addressed: photo_blobs holds each distinct display image (named by the
      -- SHA-256 of its bytes) and its thumbnail once, however many animals show it; refs counts the
      -- pet_photos rows that name it, and the blob is deleted in the transaction that drops the last
      -- one (src/photos/photo.service.ts). Every change of refs locks the blob's row, so an upload
      -- and the removal of the last reference to the same image queue on it.
      CREATE TABLE photo_blobs (
        hash TEXT PRIMARY KEY,
        media_type TEXT NOT NULL CHECK (media_type IN ('image/jpeg', 'image/png', 'image/webp')),
        width INTEGER NOT NULL,
        height INTEGER NOT NULL,
        size INTEGER NOT NULL,
        image BYTEA NOT NULL,
        thumbnail BYTEA NOT NULL,
        refs INTEGER NOT NULL CHECK (refs > 0),
        created_at TIMESTAMPTZ NOT NULL
      );
      -- Already compressed: TOAST would only spend CPU trying again.
      ALTER TABLE photo_blobs ALTER COLUMN image SET STORAGE EXTERNAL, ALTER COLUMN thumbnail SET STORAGE EXTERNAL;
      CREATE TABLE pet_photos (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        pet_id BIGINT NOT NULL REFERENCES pets (id),
        hash TEXT NOT NULL REFERENCES photo_blobs (hash),
        created_at TIMESTAMPTZ NOT NULL,
        UNIQUE (pet_id, hash)
      );
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
      ALTER TABLE api_keys ADD COLUMN parent_id BIGINT REFERENCES api_keys (id), ADD COLUMN owner BOOLEAN NOT NULL DEFAULT false;
      CREATE INDEX api_keys_parent ON api_keys (parent_id) WHERE parent_id IS NOT NULL;
      -- The first-run key (the first key, named so by main.ts) was the owner's all-scope key.
      UPDATE api_keys SET owner = true WHERE name = 'first-run' AND id = (SELECT min(id) FROM api_keys);
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
      ALTER TABLE webhooks ADD COLUMN owner_key_id BIGINT REFERENCES api_keys (id);
      ALTER TABLE webhooks ADD COLUMN host TEXT;
      UPDATE webhooks SET host = split_part(substr(url, strpos(url, '://') + 3), '/', 1);
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
    `,
  },
];
