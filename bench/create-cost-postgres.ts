// `node bench/create-cost-postgres.ts`: the PostgreSQL backend's CPU time (utime + stime of its
// process, /proc) per create's inserts (the pets row as the service inserts it, and its two tags),
// each committed on its own, durably — on the schema of migrations 1–13, then after migration 14
// (issue 33, docs/performance.md "What a create writes"). Rounds alternate by dropping and
// re-creating migration 14's indexes. Embedded PostgreSQL unless TEST_DATABASE_URL names a server.
import { readFileSync } from 'node:fs';
import { readMigrations } from '../src/storage/migration.ts';
import { PgDb } from '../src/storage/postgres/postgres.db.ts';
import { migratePostgres } from '../src/storage/postgres/postgres.storage.ts';
import { openBenchPostgres } from './postgres.ts';

const N = Number(process.env.N ?? 1000);
const ROUNDS = 3;
const TICK_US = 1e6 / 100; // CLK_TCK 100 (getconf CLK_TCK)
const pg = await openBenchPostgres(process.env);
const db = new PgDb({ url: pg.url, poolSize: 1, timeouts: { statementMs: 600_000, queryMs: 610_000 } });
try {
  const all = readMigrations('postgres');
  await migratePostgres(
    db,
    all.filter((m) => m.version <= 12),
  );
  // Migration 14's drops, and their undoing (the same indexes as migration 9 made them).
  const drops = all.find((m) => m.version === 14)!.sql;
  const nine = readFileSync(new URL('../src/storage/migrations/0009-catalogue-search-prices/postgres.sql', import.meta.url), 'utf8');
  const recreate = nine
    .split('\n')
    .filter((l) => /^CREATE INDEX pets_live_(status|category|category_status)_(name|price|created) /.test(l))
    .join('\n')
    .replaceAll('CREATE INDEX ', 'CREATE INDEX IF NOT EXISTS ');
  const [{ pid }] = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const cpu = () => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_US;
  };
  let i = 0;
  const create = async () => {
    i++;
    const stamp = new Date(1_700_000_000_000 + i * 1000).toISOString();
    const [{ id }] = await db.query<{ id: number }>(
      `WITH c AS (SELECT id FROM categories WHERE id = $1 AND deleted_at IS NULL FOR KEY SHARE)
       INSERT INTO pets (name, category_id, status, description, tags, price_amount, price_currency, created_at, updated_at, search_text, name_key)
       SELECT $2, id, 'available', $3, '["friendly","house-trained"]', $4, 'EUR', $5, $5, $6, $7 FROM c RETURNING id`,
      [1 + (i % 5), `Rex ${i}`, 'A friendly Labrador, house-trained', 1999 + i, stamp, `rex ${i} a friendly labrador house trained`, `rex ${i}`],
    );
    await db.query('INSERT INTO pet_tags (tag, pet_id) SELECT t, $1 FROM unnest($2::text[]) AS t', [id, ['friendly', 'house-trained']]);
  };
  for (let k = 0; k < 1000; k++) await create(); // 1,000 pets first, like the bench's store
  const results: Record<string, number[]> = { 'migrations 1-13': [], 'migration 14': [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const schema of ['migrations 1-13', 'migration 14'] as const) {
      await db.query(schema === 'migration 14' ? drops : recreate);
      const before = cpu();
      const started = performance.now();
      for (let k = 0; k < N; k++) await create();
      const wall = performance.now() - started;
      results[schema].push((cpu() - before) / N);
      console.error(`round ${round + 1} ${schema}: ${((cpu() - before) / N).toFixed(0)} µs backend CPU, ${((wall * 1000) / N).toFixed(0)} µs wall per create`);
    }
  }
  for (const [schema, values] of Object.entries(results)) {
    values.sort((a, b) => a - b);
    console.log(
      `${schema.padEnd(16)} backend CPU per create's inserts: median ${values[ROUNDS >> 1].toFixed(0)} µs, range ${values[0].toFixed(0)}–${values[ROUNDS - 1].toFixed(0)} µs`,
    );
  }
} finally {
  await db.close();
  await pg.close();
}
