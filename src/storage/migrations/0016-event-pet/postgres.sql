-- name: events by animal

-- The animal an event concerns (events/event.schemas.ts, eventPetId): a pet.* event's Pet, a
-- pet.health.* event's record's animal, an order.* event's animal; NULL for a category. The
-- feed's `petId` filter (GET /v1/events?petId=, an animal's history in the console) walks
-- events_pet_xid_id in the feed's own order. Events written before this migration get theirs
-- from their data; an instance of the release before, still writing during a rolling deploy,
-- leaves it NULL (its events are missing from an animal's history, as before).
ALTER TABLE events ADD COLUMN pet_id BIGINT;
UPDATE events SET pet_id = CAST(CAST(data AS jsonb) ->> (CASE WHEN type LIKE 'pet.health.%' OR type LIKE 'order.%' THEN 'petId' ELSE 'id' END) AS BIGINT)
  WHERE type LIKE 'pet.%' OR type LIKE 'order.%';
CREATE INDEX events_pet_xid_id ON events (pet_id, xid, id) WHERE pet_id IS NOT NULL;
