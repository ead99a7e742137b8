-- name: the animal's record: identity and origin

-- The animal's legal record (issue 36, docs/api.md "The animal's record"), members of the pet kept
-- as the pets domain writes them (PET_FIELDS, src/pets/pet.schemas.ts; the rules in
-- src/pets/pet.record.ts). breed and source are JSON objects; birth_date and acquired_at are days
-- (YYYY-MM-DD); microchip normalised (15 digits, or a
-- legacy code of 10 hexadecimal characters or 9 digits).
ALTER TABLE pets ADD COLUMN breed TEXT;
ALTER TABLE pets ADD COLUMN sex TEXT CHECK (sex IN ('male', 'female', 'unknown'));
ALTER TABLE pets ADD COLUMN neutered BOOLEAN;
ALTER TABLE pets ADD COLUMN colour TEXT;
ALTER TABLE pets ADD COLUMN birth_date DATE;
ALTER TABLE pets ADD COLUMN birth_date_estimated BOOLEAN;
ALTER TABLE pets ADD COLUMN microchip TEXT;
ALTER TABLE pets ADD COLUMN acquired_at DATE;
ALTER TABLE pets ADD COLUMN source TEXT;
-- The record's state under the store's RECORD_REQUIRED_FIELDS, written with every write of the
-- pet and restated for every pet at start-up (applyRecordRule, src/pets/pet.service.ts) when the
-- setting changed. The defaults are the state of an animal without a record under the default
-- setting (the §402 list): the pets written before this migration, and those the release before
-- writes during a rolling deploy, need no restating unless the setting differs.
ALTER TABLE pets ADD COLUMN record_complete BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE pets ADD COLUMN record_missing TEXT NOT NULL DEFAULT '["source","acquiredAt","birthDate","colour","sex","breed"]'; -- JSON array of member names

-- A microchip number belongs to one live animal (409 microchip_in_use; the workflows check it
-- first under a lock on the number, this refuses the rest); it also serves GET /pets?microchip=.
CREATE UNIQUE INDEX pets_live_microchip ON pets (microchip) WHERE deleted_at IS NULL AND microchip IS NOT NULL;
-- The sex and record-state filters in id order, and their counts in another order (petListPlan),
-- as pets_live_status_id serves the status filter. The breed filter's terms are rows of pet_tags
-- (`breed:<word>`, written by the pets domain), served by its primary key as the tag filter is.
CREATE INDEX pets_live_sex_id ON pets (sex, id) WHERE deleted_at IS NULL;
CREATE INDEX pets_live_record_id ON pets (record_complete, id) WHERE deleted_at IS NULL;
