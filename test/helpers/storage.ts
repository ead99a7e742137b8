// Shared by the storage contract suites (test/storage/*contract*.test.ts).
import type { ApiKey } from '../../src/keys/key.schemas.ts';
import type { ApiKeyCreate } from '../../src/keys/key.store.ts';
import type { Storage } from '../../src/storage/storage.ts';

/**
 * Opens the pool's connections first; on a cold pool the first transaction can finish before a
 * second connection exists, and a race test would then prove nothing.
 */
export async function warmUp(storage: Storage): Promise<void> {
  await Promise.all(Array.from({ length: 20 }, () => storage.ping()));
}

/** A key stored exactly as given (its hash included), as createApiKey stores one with a random secret. */
export function insertKey(storage: Storage, input: ApiKeyCreate, ctx: { readonly now: Date }): Promise<ApiKey> {
  return storage.transaction((tx) => tx.apiKeys.insert(input, ctx.now));
}
