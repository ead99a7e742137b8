// The imports' storage (src/storage/sql/sql.imports.ts) on every engine: a job and its rows, a row
// taken only while pending (what makes applying twice, or after a crash, apply it once), the counts
// by outcome and the job's own counts, the refusals by line, the microchip holders among live animals.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createPet, withdrawPet } from '../../src/pets/pet.service.ts';
import { ENGINES, openTestStorage } from '../helpers/engines.ts';
import { petRecord } from '../helpers/pets.ts';

const now = new Date('2026-08-01T09:00:00.000Z');

for (const engine of ENGINES) {
  describe(`${engine}: imports storage`, () => {
    test('stores a job and its rows; a row is taken once, while pending; counts, refusals and pending rows read back', async (t) => {
      const storage = await openTestStorage(t, engine);
      const job = await storage.transaction((tx) => tx.imports.create('jsonl', true, now));
      assert.deepEqual(
        { state: job.state, format: job.format, createCategories: job.createCategories, createdAt: job.createdAt },
        { state: 'validating', format: 'jsonl', createCategories: true, createdAt: now.toISOString() },
      );
      await storage.transaction((tx) =>
        tx.imports.addRows(job.id, [
          { line: 2, outcome: 'pending', category: 'Corals', data: { name: 'Nemo', tags: ['a'] } },
          { line: 3, outcome: 'invalid', error: { field: 'name', code: 'validation_failed', message: 'no name' } },
          { line: 5, outcome: 'pending', petId: 7, data: { status: 'sold' } },
        ]),
      );
      await storage.transaction((tx) => tx.imports.setState(job.id, 'applying', now));
      assert.equal((await storage.imports.get(job.id))?.state, 'applying');
      assert.deepEqual(await storage.imports.applying(), [job.id]);
      assert.deepEqual(await storage.imports.categoryNames(job.id), ['Corals']);
      assert.deepEqual(await storage.imports.pending(job.id, 0, 10), [
        { line: 2, outcome: 'pending', category: 'Corals', data: { name: 'Nemo', tags: ['a'] } },
        { line: 5, outcome: 'pending', petId: 7, data: { status: 'sold' } },
      ]);
      assert.deepEqual(
        (await storage.imports.pending(job.id, 2, 10)).map((r) => r.line),
        [5],
      );

      assert.equal(await storage.transaction((tx) => tx.imports.takeRow(job.id, 2)), true);
      await storage.transaction(async (tx) => {
        assert.equal(await tx.imports.takeRow(job.id, 2), true);
        await tx.imports.settleRow(job.id, 2, 'created', 41);
      });
      assert.equal(await storage.transaction((tx) => tx.imports.takeRow(job.id, 2)), false, 'an applied row is not taken again');
      assert.equal(await storage.transaction((tx) => tx.imports.takeRow(job.id, 3)), false, 'an invalid row is never taken');
      await storage.transaction((tx) =>
        tx.imports.settleRow(job.id, 5, 'refused', undefined, { field: 'status', code: 'pet_has_open_order', message: 'open' }),
      );
      assert.deepEqual(await storage.imports.counts(job.id), { created: 1, invalid: 1, refused: 1 });
      // The job's own counts: added to, and set.
      await storage.transaction(async (tx) => {
        await tx.imports.addCounts(job.id, { rows: 3, invalid: 1 });
        await tx.imports.addCounts(job.id, { created: 2, refused: 1 });
        await tx.imports.setCounts(job.id, { created: 1 });
      });
      assert.deepEqual((await storage.imports.get(job.id))?.counts, { rows: 3, invalid: 1, created: 1, updated: 0, unchanged: 0, refused: 1 });
      assert.deepEqual(
        (await storage.imports.refusals(job.id, 10)).map((r) => [r.line, r.outcome, r.error?.code]),
        [
          [3, 'invalid', 'validation_failed'],
          [5, 'refused', 'pet_has_open_order'],
        ],
      );
      assert.equal(await storage.imports.get(job.id + 1), undefined);
    });

    test('finds the live animals holding microchip numbers', async (t) => {
      const storage = await openTestStorage(t, engine);
      const a = await createPet(storage, petRecord({ name: 'A', categoryId: 1, microchip: '985112345678903' }), { now });
      const b = await createPet(storage, petRecord({ name: 'B', categoryId: 1, microchip: '123456789' }), { now });
      await withdrawPet(storage, b.id, { now });
      const holders = await storage.imports.microchipHolders(['985112345678903', '123456789', '000000000']);
      assert.deepEqual([...holders], [['985112345678903', a.id]]);
      assert.deepEqual([...(await storage.imports.microchipHolders([]))], []);
    });
  });
}
