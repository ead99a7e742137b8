// The API keys' storage (storage/sql/sql.keys.ts, and each engine's cached or batched findByHash).
import type { ApiKey } from './key.schemas.ts';
import type { Scope, StoredPrincipal } from './key.types.ts';

export interface ApiKeyCreate {
  readonly name: string;
  readonly prefix: string;
  readonly hash: string; // hex SHA-256 of the whole key
  readonly scopes: readonly Scope[];
  readonly expiresAt: Date | null;
  /** The key that makes it; null or absent for a top-level key. */
  readonly parentId?: number | null;
  /** An owner key manages every key; absent → false. */
  readonly owner?: boolean;
}

/** Keyset page request over keys: ascending ids after `afterId`. */
export interface KeyQuery {
  readonly limit: number;
  readonly afterId: number;
  /** Only this key and its descendants; undefined → every key. */
  readonly within?: number;
}

/** Keyset page request over the live descendants of a key: ascending ids after `afterId`. */
export interface DescendantQuery {
  readonly limit: number;
  readonly afterId: number;
  readonly under: number;
  /** Keys expired at this instant are left out, as they are ended already. */
  readonly liveAt: Date;
}

export interface ApiKeyRepository {
  /**
   * The key with this hash, revoked or expired or not; every request asks. Whether it still works
   * is decided by the caller, against its clock (KeyVerifier, `keyIsActive`).
   */
  findByHash(hash: string): Promise<StoredPrincipal | undefined>;
  /** Every key (or every key of a subtree, `within`), revoked and expired ones included. */
  list(query: KeyQuery): Promise<ApiKey[]>;
  get(id: number): Promise<ApiKey | undefined>;
  /**
   * A page of the live keys below `under` (its descendants, not the key itself; none revoked, none
   * expired at `liveAt`): the keys a revocation of `under` would end besides it, ascending by id.
   */
  descendants(query: DescendantQuery): Promise<ApiKey[]>;
  /** The ids of the key's ancestors: its parent, the parent's parent, … (none for a top-level or unknown key). */
  ancestors(id: number): Promise<number[]>;
  count(): Promise<number>;
}

export interface ApiKeyTx {
  insert(input: ApiKeyCreate, at: Date): Promise<ApiKey>;
  /** The key, revoked or not, locked FOR NO KEY UPDATE. */
  lock(id: number): Promise<ApiKey | undefined>;
  /** Revokes the key and every descendant not revoked yet, at `at`; how many it revoked. */
  revokeTree(id: number, at: Date): Promise<number>;
  /** As ApiKeyRepository.ancestors, inside the transaction. */
  ancestors(id: number): Promise<number[]>;
  /** How many keys of the subtree of `id` (the key and the keys below it) are neither revoked nor expired at `at`. */
  countLive(id: number, at: Date): Promise<number>;
}
