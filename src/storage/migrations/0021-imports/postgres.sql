-- name: imports

-- Imports (src/imports/, docs/api.md "Imports"): an uploaded stock list, validated row by row at
-- upload and applied later. `state` moves validating → ready → applying → done, or to failed when
-- the upload could not be read. Its counts (rows, invalid, created…) are read from its rows.
CREATE TABLE imports (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  state TEXT NOT NULL CHECK (state IN ('validating', 'ready', 'applying', 'done', 'failed')),
  format TEXT NOT NULL CHECK (format IN ('csv', 'jsonl')),
  create_categories BOOLEAN NOT NULL,
  failure TEXT,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX imports_applying ON imports (state) WHERE state IN ('validating', 'applying');

-- One row of an import per line of the file that holds one, with what it asks for as
-- validated: `data` a NewPet or PetPatch (JSON), `category` by name, `pet_id` the animal it updates. A row is
-- applied in the transaction that writes its animal, which sets its outcome: applying again (after a
-- crash, or twice) skips every row that has one.
CREATE TABLE import_rows (
  import_id BIGINT NOT NULL REFERENCES imports (id) ON DELETE CASCADE,
  line INTEGER NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('pending', 'invalid', 'created', 'updated', 'unchanged', 'refused')),
  pet_id BIGINT,
  category TEXT,
  data TEXT,
  field TEXT,
  code TEXT,
  message TEXT,
  PRIMARY KEY (import_id, line)
);
