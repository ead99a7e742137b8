-- name: pets, categories, api keys

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
