-- name: pets, categories, api keys

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
