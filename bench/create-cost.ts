// Per-statement CPU of a create's pet insert on SQLite, with the migration-9 index groups dropped one at a time.
import { DatabaseSync } from 'node:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const root = process.argv[2] ?? new URL('..', import.meta.url).pathname;
const { readMigrations } = await import(`${root}/src/storage/migration.ts`);
const SQLITE_MIGRATIONS = readMigrations('sqlite').filter((m: { version: number }) => m.version <= 13);
const { migrateSqlite } = await import(`${root}/src/storage/sqlite/sqlite.storage.ts`);
const N = Number(process.env.N ?? 3000);
const BATCH = Number(process.env.BATCH ?? 10);
const ROUNDS = 5;
const ALL = readMigrations('sqlite');
const fourteen = ALL.find((m: { version: number }) => m.version === 14)?.sql ?? '';
const variants: Record<string, string> = {
  'migrations 1-13': '',
  'migration 14 too': fourteen,
  'migrations 1-13, again (the first variant also warms the JIT)': '',
  // What remains after migration 14, one part at a time (not a schema to ship: what each costs).
  '14, without the FTS5 trigger': `${fourteen}; DROP TRIGGER pets_fts_insert;`,
  '14, without the inventory and stock-value triggers': `${fourteen}; DROP TRIGGER pets_inventory_insert; DROP TRIGGER pets_stock_value_insert;`,
  '14, without the three sort indexes': `${fourteen}; DROP INDEX pets_live_name; DROP INDEX pets_live_price; DROP INDEX pets_live_created;`,
  '14, without the four id-order filter indexes': `${fourteen}; DROP INDEX pets_live_id; DROP INDEX pets_live_status_id; DROP INDEX pets_live_category_id; DROP INDEX pets_live_category_status_id;`,
};
const dir = mkdtempSync(join(tmpdir(), 'create-cost-'));
for (const [name, drop] of Object.entries(variants)) {
  const results: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const path = join(dir, `${name.replaceAll(/\W+/g, '_')}-${round}.db`);
    const db = new DatabaseSync(path);
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF');
    migrateSqlite(db, SQLITE_MIGRATIONS);
    db.exec(drop);
    const insert =
      db.prepare(`INSERT INTO pets (name, category_id, status, description, tags, price_amount, price_currency, created_at, updated_at, search_text, name_key)
      VALUES (?, 1 + ? % 5, 'available', ?, '["friendly","house-trained"]', ?, 'EUR', ?, ?, ?, ?) RETURNING id`);
    const tags = db.prepare(`INSERT INTO pet_tags (tag, pet_id) SELECT value, ? FROM json_each(?)`);
    const run = (i: number) => {
      const stamp = new Date(1_700_000_000_000 + i * 1000).toISOString();
      const { id } = insert.get(
        `Rex ${i}`,
        i,
        'A friendly Labrador, house-trained',
        1999 + i,
        stamp,
        stamp,
        `rex ${i} a friendly labrador house trained`,
        `rex ${i}`,
      ) as { id: number };
      tags.run(id, '["friendly","house-trained"]');
    };
    db.exec('BEGIN');
    for (let i = 0; i < 1000; i++) run(i); // 1,000 pets first, like the bench's store
    db.exec('COMMIT');
    // Commits of BATCH creates, as the service's group commit makes them under load (FTS5 writes its
    // pending terms as a new segment at every commit, and merges segments as they accumulate).
    const start = process.cpuUsage();
    for (let i = 1000; i < 1000 + N; i += BATCH) {
      db.exec('BEGIN');
      for (let j = i; j < i + BATCH; j++) run(j);
      db.exec('COMMIT');
    }
    const used = process.cpuUsage(start);
    db.close();
    results.push((used.user + used.system) / N);
  }
  results.sort((a, b) => a - b);
  console.log(
    `${name.padEnd(36)} µs CPU per create's inserts (pets row + 2 tags): median ${results[ROUNDS >> 1].toFixed(1)}, range ${results[0].toFixed(1)}–${results[ROUNDS - 1].toFixed(1)}`,
  );
}
rmSync(dir, { recursive: true, force: true });
