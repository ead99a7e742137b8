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
];
