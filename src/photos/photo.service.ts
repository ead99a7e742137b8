import { changesOf } from '../activity/activity.changes.ts';
import type { Clock } from '../clock.ts';
import { AppError, assertFound, notFound } from '../errors.ts';
import { withoutEvents, write } from '../events/event.outbox.ts';
import type { WriteContext } from '../events/event.store.ts';
import type { Storage } from '../storage/storage.ts';
import { processPhoto, type PhotoLimits } from './photo.image.ts';
import { PHOTOS_PER_PET, type Photo, type PhotoBlob, type PhotoVariant, type ProcessedPhoto } from './photo.schemas.ts';

// The photo workflows: each runs in one write transaction over the pet's row, which it locks, so
// the changes of one pet's photos queue one behind the other. Locks go pet → blob, in both.
// Adding or removing a photo changes the pet's photoUrls: it records pet.updated with the pet.

/** What adding a photo did: `created` is false when the pet already had this very image. */
export interface AddedPhoto {
  readonly photo: Photo;
  readonly created: boolean;
}

/** Adds a processed photo to a live pet; the same image twice is one photo (and one stored copy). */
export function addPhoto(storage: Storage, petId: number, image: ProcessedPhoto, ctx: WriteContext<AddedPhoto>): Promise<AddedPhoto> {
  return write(storage, ctx, async (tx) => {
    const before = await tx.pets.lock(petId);
    assertFound(`pet ${petId}`, before);
    const photos = await tx.photos.list(petId);
    const same = photos.find((p) => p.hash === image.hash);
    if (same) return withoutEvents({ photo: same, created: false });
    if (photos.length >= PHOTOS_PER_PET) {
      throw tooManyPhotos(petId);
    }
    await tx.photos.retain(image, ctx.now);
    const photo = await tx.photos.attach(petId, image.hash, ctx.now);
    const pet = await tx.photos.setPetPhotos(petId, [...photos.map((p) => p.hash), image.hash], ctx.now);
    return { result: { photo, created: true }, events: [{ type: 'pet.updated', data: pet, changes: changesOf(before, pet) }] };
  });
}

export function tooManyPhotos(petId: number): AppError {
  return new AppError('too_many_photos', `pet ${petId} has ${PHOTOS_PER_PET} photos, the most an animal may have; remove one first`);
}

/** Removes a photo from a live pet; its bytes go with the last photo that showed them. */
export function removePhoto(storage: Storage, petId: number, photoId: number, ctx: WriteContext<void>): Promise<void> {
  return write(storage, ctx, async (tx) => {
    const before = await tx.pets.lock(petId);
    assertFound(`pet ${petId}`, before);
    const removed = await tx.photos.detach(petId, photoId);
    assertFound(`photo ${photoId} of pet ${petId}`, removed);
    await tx.photos.release(removed.hash);
    const pet = await tx.photos.setPetPhotos(
      petId,
      (await tx.photos.list(petId)).map((p) => p.hash),
      ctx.now,
    );
    return { result: undefined, events: [{ type: 'pet.updated', data: pet, changes: changesOf(before, pet) }] };
  });
}

export function imageWorkFull(concurrency: number): AppError {
  return new AppError(
    'service_unavailable',
    `${concurrency} photo uploads are being processed, the most this instance takes at once (PHOTO_CONCURRENCY); retry in a second`,
    { 'retry-after': '1' },
  );
}

/**
 * What an upload's image work is charged to: its key tree's PHOTO_BUDGET_MS_PER_MINUTE, kept by
 * the HTTP layer's limiter (http/policies/auth.ts, imageWorkBudget).
 */
export interface ImageWorkBudget {
  /** Refuses (429 with Retry-After) when this minute's budget is used up. */
  admit(): Promise<void>;
  /** Charges the milliseconds one upload's decoding and re-encoding took. */
  charge(ms: number): Promise<void>;
}

export class PhotoService {
  readonly #storage: Storage;
  readonly #clock: Clock;
  readonly #limits: PhotoLimits;
  readonly #concurrency: number;
  #decoding = 0;

  constructor(storage: Storage, clock: Clock, limits: PhotoLimits, concurrency: number) {
    this.#storage = storage;
    this.#clock = clock;
    this.#limits = limits;
    this.#concurrency = concurrency;
  }

  /**
   * Decodes and re-encodes the upload (outside any transaction: it takes CPU, not the database),
   * then stores it. At most PHOTO_CONCURRENCY uploads are decoded at once; one more is refused at
   * once (503 with Retry-After) rather than queued, so image work never holds more than its share
   * of the cores and memory, and a client sees the pressure. The time the work took is charged to
   * `budget` (refused or not: the work was done), and a key tree whose budget is used up is refused
   * before any decoding.
   */
  async add(petId: number, body: Buffer | undefined, budget?: ImageWorkBudget): Promise<AddedPhoto> {
    // No image work for an animal that is not there (the workflow checks again, under its lock).
    if ((await this.#storage.pets.get(petId)) === undefined) throw notFound(`pet ${petId}`);
    await budget?.admit();
    if (this.#decoding >= this.#concurrency) throw imageWorkFull(this.#concurrency);
    this.#decoding++;
    const started = performance.now();
    let image: ProcessedPhoto;
    try {
      image = await processPhoto(body, this.#limits);
    } finally {
      this.#decoding--;
      await budget?.charge(Math.ceil(performance.now() - started));
    }
    return addPhoto(this.#storage, petId, image, { now: this.#clock.now() });
  }

  async list(petId: number): Promise<Photo[]> {
    const photos = await this.#storage.photos.list(petId);
    if (photos === undefined) throw notFound(`pet ${petId}`);
    return photos;
  }

  remove(petId: number, photoId: number): Promise<void> {
    return removePhoto(this.#storage, petId, photoId, { now: this.#clock.now() });
  }

  async blob(hash: string, variant: PhotoVariant): Promise<PhotoBlob> {
    const blob = await this.#storage.photos.blob(hash, variant);
    if (blob === undefined) throw notFound(`photo ${hash}`);
    return blob;
  }
}
