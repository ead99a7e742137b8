// Photos inside a workflow's transaction, and their reads: the metadata (pet_photos), the bytes
// (photo_blobs, content-addressed, reference-counted) and the pet's own list (pets.photos).
import type { Pet } from '../../pets/pet.schemas.ts';
import type { Photo, PhotoBlob, PhotoVariant, ProcessedPhoto } from '../../photos/photo.schemas.ts';
import { PET_COLUMNS, PHOTO_COLUMNS, toPet, toPhoto, type PetRow, type PhotoRow } from '../rows.ts';
import type { PhotoRepository, PhotoTx } from '../../photos/photo.store.ts';
import { first, type SqlDb } from './sql.db.ts';

const PHOTOS_OF = `SELECT ${PHOTO_COLUMNS} FROM pet_photos ph JOIN photo_blobs b ON b.hash = ph.hash WHERE ph.pet_id = $1 ORDER BY ph.id`;
// The pet's row, with its photos if any (LEFT JOIN): no row at all when the pet is not live.
const LIVE_PET_PHOTOS = `SELECT p.id AS live, ${PHOTO_COLUMNS} FROM pets p
  LEFT JOIN pet_photos ph ON ph.pet_id = p.id LEFT JOIN photo_blobs b ON b.hash = ph.hash
  WHERE p.id = $1 AND p.deleted_at IS NULL ORDER BY ph.id`;
const BLOB = {
  image: 'SELECT media_type, image AS bytes FROM photo_blobs WHERE hash = $1',
  thumbnail: "SELECT 'image/webp' AS media_type, thumbnail AS bytes FROM photo_blobs WHERE hash = $1",
};

/** SQLite hands BLOBs back as Uint8Array, PostgreSQL bytea as Buffer: a Buffer either way, without a copy. */
const asBuffer = (b: Uint8Array): Buffer => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

export class SqlPhotos implements PhotoRepository {
  readonly #db: SqlDb;

  constructor(db: SqlDb) {
    this.#db = db;
  }

  async list(petId: number): Promise<Photo[] | undefined> {
    const rows = await this.#db.all<PhotoRow & { live: number; id: number | null }>(LIVE_PET_PHOTOS, [petId]);
    if (rows.length === 0) return undefined;
    return rows.filter((r) => r.id !== null).map(toPhoto);
  }

  async blob(hash: string, variant: PhotoVariant): Promise<PhotoBlob | undefined> {
    const row = await first<{ media_type: string; bytes: Uint8Array }>(this.#db, BLOB[variant], [hash]);
    return row && { mediaType: row.media_type, bytes: asBuffer(row.bytes) };
  }
}

export class SqlPhotoTx implements PhotoTx {
  readonly #db: SqlDb;

  constructor(db: SqlDb) {
    this.#db = db;
  }

  async list(petId: number): Promise<Photo[]> {
    return (await this.#db.all<PhotoRow>(PHOTOS_OF, [petId])).map(toPhoto);
  }

  async retain(p: ProcessedPhoto, at: Date): Promise<void> {
    // The upsert locks the existing row (PostgreSQL) before counting: a release of the same image
    // waits for this transaction, or this one waits for it and then inserts the row anew.
    await this.#db.run(
      `INSERT INTO photo_blobs (hash, media_type, width, height, size, image, thumbnail, refs, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, 1, $8)
       ON CONFLICT (hash) DO UPDATE SET refs = photo_blobs.refs + 1`,
      [p.hash, p.mediaType, p.width, p.height, p.image.length, p.image, p.thumbnail, at.toISOString()],
    );
  }

  async release(hash: string): Promise<void> {
    // Either statement locks the row first and then decides on the count it finds (PostgreSQL
    // re-reads a row another transaction changed while this one waited): a retain that committed
    // meanwhile keeps the bytes; one still waiting inserts them anew after this commits.
    if ((await this.#db.run('DELETE FROM photo_blobs WHERE hash = $1 AND refs = 1', [hash])) === 0) {
      await this.#db.run('UPDATE photo_blobs SET refs = refs - 1 WHERE hash = $1', [hash]);
    }
  }

  async attach(petId: number, hash: string, at: Date): Promise<Photo> {
    const [{ id }] = await this.#db.all<{ id: number }>('INSERT INTO pet_photos (pet_id, hash, created_at) VALUES ($1, $2, $3) RETURNING id', [
      petId,
      hash,
      at.toISOString(),
    ]);
    return toPhoto(
      (await first<PhotoRow>(this.#db, `SELECT ${PHOTO_COLUMNS} FROM pet_photos ph JOIN photo_blobs b ON b.hash = ph.hash WHERE ph.id = $1`, [id]))!,
    );
  }

  async detach(petId: number, photoId: number): Promise<Photo | undefined> {
    const row = await first<PhotoRow>(
      this.#db,
      `SELECT ${PHOTO_COLUMNS} FROM pet_photos ph JOIN photo_blobs b ON b.hash = ph.hash WHERE ph.id = $1 AND ph.pet_id = $2`,
      [photoId, petId],
    );
    if (row === undefined) return undefined;
    await this.#db.run('DELETE FROM pet_photos WHERE id = $1', [photoId]);
    return toPhoto(row);
  }

  async setPetPhotos(petId: number, hashes: readonly string[], at: Date): Promise<Pet> {
    // A change of photos is a change of the pet (a pet.updated event): updatedAt moves with it.
    const sql = `UPDATE pets SET photos = $2, updated_at = $3 WHERE id = $1 RETURNING ${PET_COLUMNS}`;
    return toPet((await first<PetRow>(this.#db, sql, [petId, hashes.length === 0 ? null : hashes.join(' '), at.toISOString()]))!);
  }
}
