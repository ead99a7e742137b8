// The customers' storage (storage/sql/sql.customers.ts). What an erasure keeps and for how long is
// the workflow's to decide (customer.service.ts); the engines store and clear what they are told.
import type { Customer, CustomerRecord, NewCustomer } from './customer.schemas.ts';

/** Keyset page request over the live customers, ascending by id. */
export interface CustomerQuery {
  readonly limit: number;
  readonly afterId: number;
  /** Only customers whose search text contains this (customer.search.ts customerNeedle). */
  readonly needle?: string;
}

/** A customer's data as a workflow writes it, with the text the engines search it by. */
export interface CustomerWrite {
  readonly customer: Omit<Customer, 'id' | 'createdAt' | 'updatedAt'> | NewCustomer;
  readonly searchText: string;
}

export interface CustomerRepository {
  /** A live customer (neither withdrawn nor erased). */
  get(id: number): Promise<Customer | undefined>;
  list(query: CustomerQuery): Promise<Customer[]>;
  /** What the store holds on the customer, whatever its state; undefined only when the id was never used. */
  record(id: number): Promise<CustomerRecord | undefined>;
  /** Whether any kept name and address has a retention period ended at `now` (the job writes only then). */
  retentionEnded(now: Date): Promise<boolean>;
}

export interface CustomerTx {
  insert(input: CustomerWrite, at: Date): Promise<Customer>;
  /** A live customer, locked FOR UPDATE. */
  lock(id: number): Promise<Customer | undefined>;
  /** The customer whatever its state, locked FOR UPDATE (erasure). */
  lockRecord(id: number): Promise<CustomerRecord | undefined>;
  /** Writes a live customer this transaction locked. */
  update(id: number, input: CustomerWrite, at: Date): Promise<Customer>;
  /** Withdraws a live customer this transaction locked: no longer read, listed or sold to; its data stays until erased. */
  withdraw(id: number, at: Date): Promise<void>;
  /**
   * Erases the customer's personal data (withdrawing it if live): everything but, when `keepUntil`
   * is given, the name and address, which are kept until then.
   */
  erase(id: number, at: Date, keepUntil: Date | undefined): Promise<CustomerRecord>;
  /** Erases the name and address kept by erasures whose period ended at `now`; returns how many customers. */
  endRetention(now: Date): Promise<number>;
}
