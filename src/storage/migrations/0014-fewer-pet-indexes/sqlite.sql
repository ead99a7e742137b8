-- name: fewer pet indexes: one per sort key; search index without column sizes (SQLite)

-- What a create writes (issue 33, docs/performance.md "What a create writes"): migration 9 gave
-- each sort key four partial indexes, one per filter set (none, status, category, both). A sort
-- with status or categoryId now counts the filter's matches on its id-order index (migration 5)
-- and either sorts the few or walks the sort key's own index, checking the filters per pet, at
-- most SEARCH_WALK pets a page (storage/sql/sql.pet-list.ts, petListPlan) — as a search or a tag
-- filter does. Kept: pets_live_name, pets_live_price, pets_live_created.
DROP INDEX pets_live_status_name;
DROP INDEX pets_live_category_name;
DROP INDEX pets_live_category_status_name;
DROP INDEX pets_live_status_price;
DROP INDEX pets_live_category_price;
DROP INDEX pets_live_category_status_price;
DROP INDEX pets_live_status_created;
DROP INDEX pets_live_category_created;
DROP INDEX pets_live_category_status_created;

-- The search index without its per-row column sizes (columnsize=0): they serve ranking (bm25),
-- which no query uses, and cost a row in pets_fts_docsize per insert. Rebuilt from the live,
-- indexed pets (what its triggers, which stay, keep it to).
DROP TABLE pets_fts;
CREATE VIRTUAL TABLE pets_fts USING fts5(
  search_text, content = 'pets', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3', detail = none, columnsize = 0
);
INSERT INTO pets_fts (rowid, search_text) SELECT id, search_text FROM pets WHERE deleted_at IS NULL AND search_text IS NOT NULL;
