-- name: fewer pet indexes: one per sort key; search index without column sizes (SQLite)

-- What a create writes (issue 33, docs/performance.md "What a create writes"): migration 9 gave
-- each sort key four partial indexes, one per filter set (none, status, category, both). A sort
-- with status or categoryId now counts the filter's matches on its id-order index (migration 5)
-- and either sorts the few or walks the sort key's own index, checking the filters per pet, at
-- most SEARCH_WALK pets a page (storage/sql/sql.pet-list.ts, petListPlan) — as a search or a tag
-- filter does. Kept: pets_live_name, pets_live_price, pets_live_created. Not additive: during a
-- rolling deploy, instances of the release before still answer a sort with status or categoryId,
-- from the kept index or by sorting the filter's matches, only slower.
DROP INDEX pets_live_status_name;
DROP INDEX pets_live_category_name;
DROP INDEX pets_live_category_status_name;
DROP INDEX pets_live_status_price;
DROP INDEX pets_live_category_price;
DROP INDEX pets_live_category_status_price;
DROP INDEX pets_live_status_created;
DROP INDEX pets_live_category_created;
DROP INDEX pets_live_category_status_created;
