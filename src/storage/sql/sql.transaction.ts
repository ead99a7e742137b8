import type { Transaction } from '../storage.ts';
import { SqlActivityTx } from './sql.activity.ts';
import { SqlCategoryTx } from './sql.categories.ts';
import { SqlCustomerTx } from './sql.customers.ts';
import { SqlHoldTx } from './sql.holds.ts';
import { SqlImportTx } from './sql.imports.ts';
import { SqlOrderTx } from './sql.orders.ts';
import { SqlPetTx } from './sql.pets.ts';
import type { Dialect, SqlDb } from './sql.db.ts';
import { SqlEventTx } from './sql.events.ts';
import { SqlHealthTx } from './sql.health.ts';
import { SqlApiKeyTx, SqlIdempotencyTx } from './sql.keys.ts';
import { SqlPhotoTx } from './sql.photos.ts';
import { SqlStaffTx } from './sql.staff.ts';
import { SqlDeliveryTx, SqlWebhookTx } from './sql.webhooks.ts';

/**
 * The repositories of one transaction, over the statements of its connection; `instance` names this
 * process as the holder of the claims and leases it takes (Dialect.alive).
 */
export function sqlTransaction(db: SqlDb, dialect: Dialect, instance: number): Transaction {
  return {
    pets: new SqlPetTx(db, dialect),
    categories: new SqlCategoryTx(db, dialect),
    orders: new SqlOrderTx(db, dialect),
    apiKeys: new SqlApiKeyTx(db, dialect),
    idempotency: new SqlIdempotencyTx(db, instance),
    events: new SqlEventTx(db, dialect),
    webhooks: new SqlWebhookTx(db, dialect),
    deliveries: new SqlDeliveryTx(db, dialect, instance),
    photos: new SqlPhotoTx(db),
    health: new SqlHealthTx(db, dialect),
    staff: new SqlStaffTx(db, dialect),
    customers: new SqlCustomerTx(db, dialect),
    holds: new SqlHoldTx(db, dialect),
    imports: new SqlImportTx(db, dialect),
    activity: new SqlActivityTx(db),
  };
}
