-- name: pet photos

-- Photos are content-addressed: photo_blobs holds each distinct display image (named by the
-- SHA-256 of its bytes) and its thumbnail once, however many animals show it; refs counts the
-- pet_photos rows that name it, and the blob is deleted in the transaction that drops the last
-- one (src/photos/photo.service.ts), so no blob outlives its last photo.
CREATE TABLE photo_blobs (
  hash TEXT PRIMARY KEY,
  media_type TEXT NOT NULL CHECK (media_type IN ('image/jpeg', 'image/png', 'image/webp')),
  width INTEGER NOT NULL,
  height INTEGER NOT NULL,
  size INTEGER NOT NULL,
  image BLOB NOT NULL,
  thumbnail BLOB NOT NULL,
  refs INTEGER NOT NULL CHECK (refs > 0),
  created_at TEXT NOT NULL
) STRICT;
CREATE TABLE pet_photos (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  pet_id INTEGER NOT NULL REFERENCES pets (id),
  hash TEXT NOT NULL REFERENCES photo_blobs (hash),
  created_at TEXT NOT NULL,
  UNIQUE (pet_id, hash)
) STRICT;
CREATE INDEX pet_photos_hash ON pet_photos (hash);
-- The pet's photos (hashes, space-separated, oldest first), kept with the pet by the photo
-- workflows, so that every read of a pet has its photoUrls without a join; NULL: none.
ALTER TABLE pets ADD COLUMN photos TEXT;
