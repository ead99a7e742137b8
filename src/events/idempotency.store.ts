// What the storage keeps of Idempotency-Keys: the claims before a request's write (IdempotencyRepository)
// and the response the write completes them with, in its own transaction (IdempotencyTx, events/event.outbox.ts).

/** The response an Idempotency-Key request will be answered with, made from the write's result. */
export interface IdempotentResponse<T> {
  readonly id: IdempotencyId;
  respond(result: T): StoredResponse;
}

/** One Idempotency-Key: whose it is, which operation it was sent to, and the key itself. */
export interface IdempotencyId {
  readonly subject: string; // Caller.subject: key:<id> or bootstrap:<hash prefix>
  readonly operation: string; // e.g. 'POST /v1/pets'
  readonly key: string; // 1–255 characters
}

/** The first response, replayed to repeats: only successful (2xx) responses are stored. */
export interface StoredResponse {
  readonly status: number;
  readonly body: string; // serialized JSON, as sent
  readonly location: string | null;
}

export interface IdempotencyRecord {
  /** SHA-256 of the canonical request body. */
  readonly fingerprint: string;
  /** undefined while the first request is still in flight. */
  readonly response: StoredResponse | undefined;
}

/** The claims of Idempotency-Keys, before a request's write; the write completes its claim (IdempotencyTx). */
export interface IdempotencyRepository {
  /**
   * Atomically claims `id` for a request whose body has `fingerprint`, unless a live record
   * exists. A record is dead when created before `expiredBefore`, or when it is still in flight
   * but was claimed before `abandonedBefore` (its process died). Returns undefined when the claim
   * was taken (a dead record is replaced), otherwise the live record, untouched.
   */
  claim(id: IdempotencyId, fingerprint: string, now: Date, expiredBefore: Date, abandonedBefore: Date): Promise<IdempotencyRecord | undefined>;
  /** Drops an in-flight claim (the request failed), so the key can be used again. */
  release(id: IdempotencyId): Promise<void>;
  /** Deletes records created before `before`; returns how many. */
  purge(before: Date): Promise<number>;
}

export interface IdempotencyTx {
  /** Stores the response of an in-flight claim; false when there is no such claim (it was taken over or released). */
  complete(id: IdempotencyId, response: StoredResponse): Promise<boolean>;
}
