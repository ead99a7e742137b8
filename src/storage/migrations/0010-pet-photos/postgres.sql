-- name: pet photos

-- Photos are content-addressed: photo_blobs holds each distinct display image (named by the
-- SHA-256 of its bytes) and its thumbnail once, however many animals show it; refs counts the
-- pet_photos rows that name it, and the blob is deleted in the transaction that drops the last
-- one (src/photos/photo.service.ts). Every change of refs locks the blob's row, so an upload
-- and the removal of the last reference to the same image queue on it.
CREATE TABLE photo_blobs (
  hash TEXT PRIMARY KEY,
  media_type TEXT NOT NULL CHECK (media_type IN ('image/jpeg', 'image/png', 'image/webp')),
  width INTEGER NOT NULL,
  height INTEGER NOT NULL,
  size INTEGER NOT NULL,
  image BYTEA NOT NULL,
  thumbnail BYTEA NOT NULL,
  refs INTEGER NOT NULL CHECK (refs > 0),
  created_at TIMESTAMPTZ NOT NULL
);
-- Already compressed: TOAST would only spend CPU trying again.
ALTER TABLE photo_blobs ALTER COLUMN image SET STORAGE EXTERNAL, ALTER COLUMN thumbnail SET STORAGE EXTERNAL;
CREATE TABLE pet_photos (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  pet_id BIGINT NOT NULL REFERENCES pets (id),
  hash TEXT NOT NULL REFERENCES photo_blobs (hash),
  created_at TIMESTAMPTZ NOT NULL,
  UNIQUE (pet_id, hash)
);
CREATE INDEX pet_photos_hash ON pet_photos (hash);
-- The pet's photos (hashes, space-separated, oldest first), kept with the pet by the photo
-- workflows, so that every read of a pet has its photoUrls without a join; NULL: none.
ALTER TABLE pets ADD COLUMN photos TEXT;
