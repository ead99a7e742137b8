import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GROUP_COUNT, partition, suiteFiles } from '../helpers/groups.ts';

describe('the processes npm test runs the suite in', () => {
  test('every test file of the suite is in exactly one group, this one included', () => {
    const files = suiteFiles();
    assert.ok(files.some((f) => f.path === 'test/unit/groups.test.ts'));
    assert.ok(files.some((f) => f.path.startsWith('clients/typescript/test/')));
    const grouped = partition(files, GROUP_COUNT).flat();
    assert.equal(grouped.length, files.length);
    assert.deepEqual(grouped.toSorted(), files.map((f) => f.path).toSorted());
  });

  test('the heaviest file first, each into the lightest group: no two groups differ by more than the heaviest file', () => {
    const files = [
      { path: 'a', weight: 10 },
      { path: 'b', weight: 7 },
      { path: 'c', weight: 5 },
      { path: 'd', weight: 4 },
      { path: 'e', weight: 1 },
    ];
    assert.deepEqual(partition(files, 2), [
      ['a', 'd'],
      ['b', 'c', 'e'],
    ]);
    assert.deepEqual(partition(files, 2), partition(files.toReversed(), 2), 'the order found does not matter');
    assert.deepEqual(partition(files, 6), [['a'], ['b'], ['c'], ['d'], ['e'], []]);
    const suite = suiteFiles();
    const weightOf = new Map(suite.map((f) => [f.path, f.weight]));
    const weights = partition(suite, GROUP_COUNT).map((g) => g.reduce((sum, path) => sum + weightOf.get(path)!, 0));
    assert.equal(weights.length, GROUP_COUNT);
    assert.ok(Math.max(...weights) - Math.min(...weights) <= Math.max(...suite.map((f) => f.weight)), `balanced: ${weights.join(', ')}`);
  });
});
