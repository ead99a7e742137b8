// The package's public surface. Browser-safe: nothing here imports from Node.
import { addressCountryValues, eventTypeValues, orderStatusValues, petStatusValues, roleValues, scopeValues, type components } from './schema.ts';

export { Petstore, type PetstoreOptions } from './client.ts';
export {
  PetstoreConnectionError,
  PetstoreError,
  type ErrorCode,
  type ErrorStatus,
  type FieldError,
  type HttpStatus,
  type PetstoreErrorCode,
  type PetstoreErrorInit,
} from './errors.ts';
export type { RateLimit } from './headers.ts';
export type {
  Args,
  AutoPaging,
  HeaderOptions,
  ImageSource,
  ImportSource,
  ImportType,
  OperationId,
  Options,
  Page,
  RequestOptions,
  Resource,
  Resources,
  ResponseOf,
  Result,
} from './operations.ts';
export { signWebhook, verifyWebhook, WebhookVerificationError, type WebhookEvent, type WebhookHeaders } from './webhooks.ts';
export type { components, operations, paths } from './schema.ts';

type Schemas = components['schemas'];
export type Pet = Schemas['Pet'];
export type NewPet = Schemas['NewPet'];
export type PetStatus = Schemas['PetStatus'];
export type Category = Schemas['Category'];
export type Order = Schemas['Order'];
export type NewOrder = Schemas['NewOrder'];
export type OrderUpdate = Schemas['OrderUpdate'];
export type OrderStatus = Schemas['OrderStatus'];
export type Event = Schemas['Event'];
export type EventType = Schemas['EventType'];
export type Webhook = Schemas['Webhook'];
export type WebhookWithSecret = Schemas['WebhookWithSecret'];
export type NewWebhook = Schemas['NewWebhook'];
export type WebhookUpdate = Schemas['WebhookUpdate'];
export type Delivery = Schemas['Delivery'];
export type CallingKey = Schemas['CallingKey'];
export type Photo = Schemas['Photo'];
export type HealthRecord = Schemas['HealthRecord'];
export type NewHealthRecord = Schemas['NewHealthRecord'];
export type Customer = Schemas['Customer'];
export type NewCustomer = Schemas['NewCustomer'];
export type CustomerPatch = Schemas['CustomerPatch'];
export type Address = Schemas['Address'];
export type CustomerExport = Schemas['CustomerExport'];
export type CustomerErasure = Schemas['CustomerErasure'];
export type SaleMethod = Schemas['SaleMethod'];
export type Hold = Schemas['Hold'];
export type NewHold = Schemas['NewHold'];
export type HoldState = Schemas['HoldState'];
export type Scope = Schemas['Scope'];
export type Staff = Schemas['Staff'];
export type Role = Schemas['Role'];
export type Session = Schemas['Session'];
export type CurrentSession = Schemas['CurrentSession'];
export type Country = Schemas['Address']['country'];

// The API's enumerations as run-time lists, in the document's order, generated from openapi.json
// (schema.ts): a picker or a filter lists them from here instead of a copy that could fall behind.
/** Every pet status. */
export const PET_STATUSES: readonly PetStatus[] = petStatusValues;
/** Every order status. */
export const ORDER_STATUSES: readonly OrderStatus[] = orderStatusValues;
/** Every event type a webhook can subscribe to and the feed can filter by. */
export const EVENT_TYPES: readonly EventType[] = eventTypeValues;
/** Every scope a key can hold. */
export const SCOPES: readonly Scope[] = scopeValues;
/** Every staff role (docs/api.md, "Roles"). */
export const ROLES: readonly Role[] = roleValues;
/** Every country an address can name: the ISO 3166-1 alpha-2 codes officially assigned. */
export const COUNTRIES: readonly Country[] = addressCountryValues;
