import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { periodic } from '../../src/jobs.ts';

// The global setTimeout at call time: the mocked one (a named import of node:timers/promises would keep the real one).
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Moves the mocked clock forward `ms` milliseconds, one at a time, letting promises settle at each step. */
async function advance(t: TestContext, ms: number): Promise<void> {
  for (let i = 0; i < ms; i++) {
    t.mock.timers.tick(1);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test('periodic runs at start and then every interval, reports a failure and goes on, and stop waits for the run in progress', async (t) => {
  // Time is mocked, so the interval and the runs' durations are exact however busy the machine is.
  t.mock.timers.enable({ apis: ['setTimeout'] });
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
  // Runs at 0, 35 (fails), 70 …: at 80 the third one is in progress.
  await advance(t, 80);
  assert.ok(runs >= 3, `${runs} runs`);
  assert.deepEqual(
    errors.map((e) => (e as Error).message),
    ['database down'],
  );
  const stopped = job.stop().then(() => ({ runs, finished }));
  await advance(t, 15);
  const atStop = await stopped;
  assert.equal(atStop.finished, atStop.runs, 'stop waited for the run in progress');
  const after = runs;
  await advance(t, 60);
  assert.equal(runs, after, 'no run after stop');
});
