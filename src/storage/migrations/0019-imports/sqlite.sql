-- name: imports

-- Imports (src/imports/, docs/api.md "Imports"): an uploaded stock list, validated row by row at
-- upload and applied later. `state` moves validating → ready → applying → done, or to failed when
-- the upload could not be read. Its counts are kept with it, so that reading the job (polled while
-- it is applied) reads one row: validation adds them with each batch of rows it stores; applying
-- adds what each batch did, and sets them from the rows themselves when it starts and ends.
CREATE TABLE imports (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  state TEXT NOT NULL CHECK (state IN ('validating', 'ready', 'applying', 'done', 'failed')),
  format TEXT NOT NULL CHECK (format IN ('csv', 'jsonl')),
  create_categories INTEGER NOT NULL,
  failure TEXT,
  row_count INTEGER NOT NULL DEFAULT 0,
  invalid_count INTEGER NOT NULL DEFAULT 0,
  created_count INTEGER NOT NULL DEFAULT 0,
  updated_count INTEGER NOT NULL DEFAULT 0,
  unchanged_count INTEGER NOT NULL DEFAULT 0,
  refused_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;
CREATE INDEX imports_applying ON imports (state) WHERE state IN ('validating', 'applying');

-- One row of an import per line of the file that holds one, with what it asks for as
-- validated: `data` a NewPet or PetPatch (JSON), `category` by name, `pet_id` the animal it updates. A row is
-- applied in the transaction that writes its animal, which sets its outcome: applying again (after a
-- crash, or twice) skips every row that has one.
CREATE TABLE import_rows (
  import_id INTEGER NOT NULL REFERENCES imports (id) ON DELETE CASCADE,
  line INTEGER NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('pending', 'invalid', 'created', 'updated', 'unchanged', 'refused')),
  pet_id INTEGER,
  category TEXT,
  data TEXT,
  field TEXT,
  code TEXT,
  message TEXT,
  PRIMARY KEY (import_id, line)
) STRICT, WITHOUT ROWID;
-- The report: the refused rows of an import by line, without reading the others.
CREATE INDEX import_rows_refused ON import_rows (import_id, line) WHERE outcome IN ('invalid', 'refused');
