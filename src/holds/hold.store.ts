// The holds' storage (storage/sql/sql.holds.ts). Which hold may change how is the workflows' to
// decide (hold.service.ts); the engines store and read what they are given.
import type { Price } from '../pets/pet.schemas.ts';
import type { SaleMethod } from '../store/order.schemas.ts';
import type { Hold, HoldState } from './hold.schemas.ts';

/** Keyset page request over the holds, ascending by id. */
export interface HoldQuery {
  readonly limit: number;
  readonly afterId: number;
  readonly customerId?: number;
  readonly petId?: number;
  readonly state?: HoldState;
}

/** What a hold records when it is placed. */
export interface HoldPlacement {
  readonly petId: number;
  readonly customerId: number;
  readonly method: SaleMethod;
  readonly until: Date;
  readonly deposit?: Price;
}

export interface HoldRepository {
  list(query: HoldQuery): Promise<Hold[]>;
  /** Every hold of the customer, ascending by id (export). */
  ofCustomer(customerId: number): Promise<Hold[]>;
  /**
   * The ids and pets of live holds whose `until` is at or before `now`, earliest first, at most
   * `limit`: a read outside any transaction, so the expiry job writes only when one is due.
   */
  due(now: Date, limit: number): Promise<{ id: number; petId: number }[]>;
}

export interface HoldTx {
  /** Places a live hold on a pet this transaction locked; undefined when the pet has a live hold already (holds_one_live). */
  insert(hold: HoldPlacement, at: Date): Promise<Hold | undefined>;
  /** The hold, locked FOR UPDATE. */
  lock(id: number): Promise<Hold | undefined>;
  /** The pet's live hold, if any (the pet locked by the caller). */
  liveFor(petId: number): Promise<Hold | undefined>;
  /** Whether the customer has a live hold. */
  customerHasLive(customerId: number): Promise<boolean>;
  /** Ends a live hold this transaction locked: `state` and what goes with it. */
  end(id: number, state: Exclude<HoldState, 'live'>, at: Date, detail: { depositRefunded?: boolean; orderId?: number }): Promise<Hold>;
}
