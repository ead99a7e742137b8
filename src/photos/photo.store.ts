// The photos' storage: the bytes sit behind these two interfaces only (storage/sql/sql.photos.ts).
import type { Pet } from '../pets/pet.schemas.ts';
import type { Photo, PhotoBlob, PhotoVariant, ProcessedPhoto } from './photo.schemas.ts';

/**
 * Photos, read side. The bytes sit behind this interface and PhotoTx only (docs/operations.md,
 * "Photos"): in the database by default; an object store would implement `blob`, `retain` and
 * `release` the same way (put by hash, delete after the last release commits).
 */
export interface PhotoRepository {
  /** The live pet's photos, oldest first; undefined when the pet is not live. */
  list(petId: number): Promise<Photo[] | undefined>;
  /** The stored bytes of a display image or its thumbnail, by the display image's hash. */
  blob(hash: string, variant: PhotoVariant): Promise<PhotoBlob | undefined>;
}

export interface PhotoTx {
  /** The photos of a pet this transaction locked, oldest first. */
  list(petId: number): Promise<Photo[]>;
  /**
   * One more reference to the photo's bytes, storing them if no photo holds them yet; locks the
   * blob's row (PostgreSQL: an upsert), so it queues behind a release of the same image.
   */
  retain(photo: ProcessedPhoto, at: Date): Promise<void>;
  /** One reference less; the bytes are deleted with the last one. */
  release(hash: string): Promise<void>;
  /** Adds a photo (its bytes retained) to a pet this transaction locked. */
  attach(petId: number, hash: string, at: Date): Promise<Photo>;
  /** Removes the pet's photo; undefined (nothing removed) when the pet has no photo with this id. */
  detach(petId: number, photoId: number): Promise<Photo | undefined>;
  /** Writes the pet's photo list (display hashes, oldest first) on a pet this transaction locked; returns the pet. */
  setPetPhotos(petId: number, hashes: readonly string[], at: Date): Promise<Pet>;
}
