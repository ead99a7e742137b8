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
  // 5 is the catalogue issue's (issue 15).
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
];
