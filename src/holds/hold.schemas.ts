import { Type, type Static } from 'typebox';
import { PRICE_MAX, type Price } from '../pets/pet.schemas.ts';
import { Cursor, Id, Limit, Timestamp } from '../schemas.ts';
import type { SaleMethod } from '../store/order.schemas.ts';

/** A hold is live until it ends, once: cancelled, converted into an order, or expired at `until`. */
export const HOLD_STATES = ['live', 'cancelled', 'converted', 'expired'] as const;
export type HoldState = (typeof HOLD_STATES)[number];
export const HoldState = Type.Unsafe<HoldState>({
  $id: 'HoldState',
  type: 'string',
  enum: [...HOLD_STATES],
  description: 'live: the animal is kept for the customer (its status `pending`); cancelled, converted (into an order) or expired: ended',
});
const stateRef = (description: string) => Type.Unsafe<HoldState>({ $ref: 'HoldState#', description });
const methodRef = (description: string) => Type.Unsafe<SaleMethod>({ $ref: 'SaleMethod#', description });
const priceRef = (description: string) => Type.Unsafe<Price>({ $ref: 'Price#', description });

/** The longest a hold may run: a reservation, not a second sale. */
export const HOLD_MAX_DAYS = 90;

const AT = '2026-11-22T12:00:00.000Z';
const EXAMPLE = {
  id: 3,
  petId: 1,
  customerId: 1,
  state: 'live',
  method: 'sale',
  until: '2026-11-29T18:00:00.000Z',
  deposit: { amount: 5000, currency: 'EUR' },
  createdAt: AT,
  updatedAt: AT,
};

export const Hold = Type.Object(
  {
    id: { ...Id('Unique identifier, assigned by the service'), examples: [3] },
    petId: { ...Id('The animal held'), examples: [1] },
    customerId: { ...Id('The customer it is held for'), examples: [1] },
    state: stateRef('Where the hold stands'),
    method: methodRef('How the animal will leave the store when the hold is converted'),
    until: Timestamp('When the hold expires unless cancelled or converted first: the animal is then available again'),
    deposit: Type.Optional(priceRef("The deposit the customer paid, in the store's currency; carried into the order on conversion")),
    depositRefunded: Type.Optional(Type.Boolean({ description: 'Set when a hold with a deposit was cancelled: whether the deposit was paid back' })),
    orderId: Type.Optional({ ...Id('The order the hold became (state `converted`)'), examples: [7] }),
    createdAt: Timestamp('When the hold was placed'),
    updatedAt: Timestamp('When the hold last changed'),
  },
  { $id: 'Hold', additionalProperties: false, description: 'An animal kept for a customer until a time, possibly against a deposit', examples: [EXAMPLE] },
);
export type Hold = Static<typeof Hold>;

export const Holds = Type.Array(Type.Unsafe<Hold>({ $ref: 'Hold#' }), { $id: 'Holds', description: 'A page of holds, ascending by id' });

export const NewHold = Type.Object(
  {
    customerId: { ...Id('The customer to keep the animal for: a live customer'), examples: [1] },
    until: Type.String({
      format: 'date-time',
      description: `When the hold expires (RFC 3339): after now, and at most ${HOLD_MAX_DAYS} days ahead`,
      examples: ['2026-11-29T18:00:00Z'],
    }),
    method: Type.Optional(methodRef('How the animal will leave the store when the hold is converted; default `sale`')),
    deposit: Type.Optional(
      Type.Object(
        {
          amount: Type.Integer({
            minimum: 1,
            maximum: PRICE_MAX,
            description: "The deposit in the minor unit of the store's currency (`STORE_CURRENCY`)",
            examples: [5000],
          }),
        },
        { additionalProperties: false, description: 'A deposit the customer paid to hold the animal' },
      ),
    ),
  },
  {
    $id: 'NewHold',
    additionalProperties: false,
    examples: [{ customerId: 1, until: '2026-11-29T18:00:00Z', deposit: { amount: 5000 } }],
  },
);
export type NewHold = Static<typeof NewHold>;

export const HoldCancel = Type.Object(
  {
    depositRefunded: Type.Boolean({
      description: 'Whether the deposit was paid back to the customer (`false` when the hold has no deposit: there is nothing to pay back)',
    }),
  },
  { $id: 'HoldCancel', additionalProperties: false, examples: [{ depositRefunded: true }] },
);
export type HoldCancel = Static<typeof HoldCancel>;

export const HoldIdParams = Type.Object({ holdId: Id('The identifier of the hold') }, { additionalProperties: false });

export const ListHoldsQuery = Type.Object(
  {
    customerId: Type.Optional(Id('Only the holds of this customer')),
    petId: Type.Optional(Id('Only the holds of this animal (with `state=live`: its live hold, if any)')),
    state: Type.Optional(stateRef('Only the holds in this state')),
    limit: Type.Optional(Limit),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export type ListHoldsQuery = Static<typeof ListHoldsQuery>;
