// Prepares a fresh, seeded database for one benchmark run: migrations (through the service's own
// storage layer), one API key with every scope, and `size` pets inserted in large batches by the
// database itself. Returns what the load needs: the key and a cursor deep into the listing.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import sharp from 'sharp';
import pg from 'pg';
import { CursorCodec } from '../src/paging.ts';
import { createApiKey } from '../src/keys/key.service.ts';
import { SCOPES } from '../src/keys/key.types.ts';
import { openStorage } from '../src/storage/open.ts';
import { processPhoto } from '../src/photos/photo.image.ts';
import { addPhoto } from '../src/photos/photo.service.ts';
import type { DatabaseConfig } from '../src/config.ts';
import { SEEDED_AT, SQL_CATEGORY, SQL_NAME, SQL_SEARCH_TEXT, SQL_STATUS } from './fixture.ts';

const BATCH = 100_000;

export interface Seeded {
  /** The key of the preflight checks and of the reference servers (they accept this one only). */
  readonly key: string;
  /** More keys with every scope, as many as asked for: the services' runs use one each (bench/run.ts). */
  readonly runKeys: readonly string[];
  /** Cursor continuing a `limit=20` listing after `afterId` (page `afterId/20 + 1`). */
  readonly deepCursor: string;
  readonly deepAfterId: number;
  /** The photo of pet 1 (the thumbnail scenario) and the file its thumbnail was written to, for the baseline's static serving. */
  readonly photo: { readonly hash: string; readonly thumbnailFile: string };
}

export async function seed(db: DatabaseConfig, size: number, runKeyCount = 0, dir?: string): Promise<Seeded> {
  const storage = await openStorage(db); // applies migrations
  let key: string;
  const runKeys: string[] = [];
  let secret: string;
  try {
    key = (await createApiKey(storage, 'bench', SCOPES)).key;
    for (let i = 1; i <= runKeyCount; i++) runKeys.push((await createApiKey(storage, `bench-run-${i}`, SCOPES)).key);
    secret = await storage.secret('cursor');
  } finally {
    await storage.close();
  }
  if (db.engine === 'sqlite') seedSqlite(db.path, size);
  else await seedPostgres(db.url, size);
  const photo = await seedPhoto(db, dir);
  // Page 10,000 of limit=20 when the store has it; otherwise the last full page.
  const deepAfterId = Math.max(0, Math.min(199_980, size - 40));
  return { key, runKeys, deepCursor: new CursorCodec(secret).encode('pets;', deepAfterId), deepAfterId, photo };
}

/**
 * One photo of pet 1, added the way an upload is (decoded, re-encoded, stored in its transaction):
 * a 1,600 × 1,200 image with some detail, so its thumbnail is a photo-sized WebP, not a few bytes.
 */
async function seedPhoto(db: DatabaseConfig, dir: string | undefined): Promise<Seeded['photo']> {
  const noise = Buffer.alloc(160 * 120 * 3);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
  const upload = await sharp(noise, { raw: { width: 160, height: 120, channels: 3 } })
    .resize(1600, 1200, { kernel: 'cubic' })
    .jpeg({ quality: 85 })
    .toBuffer();
  const storage = await openStorage(db);
  try {
    const image = await processPhoto(upload, { maxPixels: 40_000_000 });
    await addPhoto(storage, 1, image, { now: new Date() });
    const thumbnailFile = join(dir ?? '.', `${image.hash}-thumb.webp`);
    if (dir !== undefined) await writeFile(thumbnailFile, image.thumbnail);
    return { hash: image.hash, thumbnailFile };
  } finally {
    await storage.close();
  }
}

function seedSqlite(path: string, size: number): void {
  const db = new DatabaseSync(path);
  try {
    const insert = db.prepare(
      `INSERT INTO pets (name, category_id, status, created_at, updated_at, search_text, name_key)
       WITH RECURSIVE n(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       SELECT ${SQL_NAME}, ${SQL_CATEGORY}, ${SQL_STATUS}, '${SEEDED_AT}', '${SEEDED_AT}', ${SQL_SEARCH_TEXT}, ${SQL_SEARCH_TEXT} FROM n`,
    );
    for (let from = 1; from <= size; from += BATCH) {
      db.exec('BEGIN IMMEDIATE');
      insert.run(from, Math.min(size, from + BATCH - 1));
      db.exec('COMMIT');
    }
  } finally {
    db.close();
  }
}

async function seedPostgres(url: string, size: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let from = 1; from <= size; from += BATCH) {
      await client.query(
        `INSERT INTO pets (name, category_id, status, created_at, updated_at, search_text, name_key)
         SELECT ${SQL_NAME}, ${SQL_CATEGORY}, ${SQL_STATUS}, '${SEEDED_AT}', '${SEEDED_AT}', ${SQL_SEARCH_TEXT}, ${SQL_SEARCH_TEXT}
         FROM generate_series($1::int, $2::int) AS i ORDER BY i`,
        [from, Math.min(size, from + BATCH - 1)],
      );
    }
    await client.query('ANALYZE pets');
  } finally {
    await client.end();
  }
}
