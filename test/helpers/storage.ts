// Shared by the storage contract suites (test/storage/*contract*.test.ts).
import type { Storage } from '../../src/storage/storage.ts';

/**
 * Opens the pool's connections first; on a cold pool the first transaction can finish before a
 * second connection exists, and a race test would then prove nothing.
 */
export async function warmUp(storage: Storage): Promise<void> {
  await Promise.all(Array.from({ length: 20 }, () => storage.ping()));
}
