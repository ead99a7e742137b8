-- name: activity log

-- Who made each change (src/activity/, docs/api.md "Activity"): the actor of the request, and for
-- an update what changed, on the event itself (`actor`, `changes`: JSON text, NULL on events written
-- before this migration or by the service itself) and in the activity log beside the feed. The log
-- is kept ACTIVITY_RETENTION_DAYS (730 by default), longer than the feed's EVENT_RETENTION_DAYS, so
-- it is a table of its own: it also records the writes no event describes (keys, webhooks, staff,
-- sessions). Read newest first by id, filtered by actor, resource or type (their indexes), and by
-- time (activity_at).
ALTER TABLE events ADD COLUMN actor TEXT;
ALTER TABLE events ADD COLUMN changes TEXT;
CREATE TABLE activity (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,
  actor_type TEXT NOT NULL CHECK (actor_type IN ('staff', 'key', 'service')),
  actor_id INTEGER,
  actor_name TEXT NOT NULL,
  type TEXT NOT NULL,
  resource TEXT NOT NULL,
  changes TEXT
) STRICT;
CREATE INDEX activity_at ON activity (at);
CREATE INDEX activity_actor ON activity (actor_type, actor_id, id);
CREATE INDEX activity_resource ON activity (resource, id);
CREATE INDEX activity_type ON activity (type, id);
