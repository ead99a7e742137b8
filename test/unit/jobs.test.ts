import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { periodic } from '../../src/jobs.ts';

test('periodic runs at start and then every interval, reports a failure and goes on, and stop waits for the run in progress', async () => {
  const errors: unknown[] = [];
  let runs = 0;
  let finished = 0;
  const job = periodic(
    20,
    async () => {
      runs++;
      await sleep(15);
      finished++;
      if (runs === 2) throw new Error('database down');
    },
    (err) => errors.push(err),
  );
  job.start();
  job.start(); // already running: no second schedule
  assert.equal(runs, 1, 'the first run starts at once');
  await sleep(90);
  assert.ok(runs >= 3, `${runs} runs`);
  assert.deepEqual(
    errors.map((e) => (e as Error).message),
    ['database down'],
  );
  await job.stop();
  assert.equal(finished, runs, 'stop waited for the run in progress');
  const after = runs;
  await sleep(60);
  assert.equal(runs, after, 'no run after stop');
});
