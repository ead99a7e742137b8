import { Type, type Static } from 'typebox';
import type { Price } from '../pets/pet.schemas.ts';
import { Cursor, Id, Limit, Timestamp as timestamp } from '../schemas.ts';

export const ORDER_STATUSES = ['placed', 'approved', 'delivered', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const OrderStatus = Type.Unsafe<OrderStatus>({ $id: 'OrderStatus', enum: [...ORDER_STATUSES], type: 'string', description: 'Order lifecycle state' });
const statusRef = (description: string) => Type.Unsafe<OrderStatus>({ $ref: 'OrderStatus#', description });

/** How the animal leaves the store (the "method of disposition" a dealer's record names). */
export const SALE_METHODS = ['sale', 'adoption', 'transfer'] as const;
export type SaleMethod = (typeof SALE_METHODS)[number];
export const SaleMethod = Type.Unsafe<SaleMethod>({
  $id: 'SaleMethod',
  enum: [...SALE_METHODS],
  type: 'string',
  description: 'How the animal leaves the store: sold, adopted (a shelter or rescue handing it over), or transferred to another dealer or keeper',
});
const methodRef = (description: string) => Type.Unsafe<SaleMethod>({ $ref: 'SaleMethod#', description });

export const Order = Type.Object(
  {
    id: { ...Id('Unique identifier, assigned by the service'), examples: [1] },
    petId: { ...Id('The animal ordered'), examples: [1] },
    customerId: Type.Optional({
      ...Id(
        'The customer the animal goes to; absent on orders placed without one (before customers existed, or during the deprecation period of the form without it)',
      ),
      examples: [1],
    }),
    status: statusRef('Order lifecycle state'),
    method: Type.Optional(methodRef('How the animal leaves the store; absent on orders placed before it was recorded')),
    createdAt: timestamp('When the order was placed'),
    updatedAt: timestamp('When the order last changed'),
    price: Type.Optional(Type.Unsafe<Price>({ $ref: 'Price#', description: "The animal's price when the order was placed; absent when it had none" })),
    deposit: Type.Optional(Type.Unsafe<Price>({ $ref: 'Price#', description: 'The deposit paid on the hold this order was converted from; absent otherwise' })),
  },
  {
    $id: 'Order',
    additionalProperties: false,
    examples: [
      { id: 7, petId: 1, customerId: 1, status: 'placed', method: 'sale', createdAt: '2026-11-22T12:00:00.000Z', updatedAt: '2026-11-22T12:00:00.000Z' },
    ],
  },
);
export type Order = Static<typeof Order>;
export const Orders = Type.Array(Type.Unsafe<Order>({ $ref: 'Order#' }), { $id: 'Orders', description: 'A page of orders, ascending by id' });

export const NewOrder = Type.Object(
  {
    petId: { ...Id('The animal to buy; it must be `available`'), examples: [1] },
    customerId: Type.Optional({
      ...Id(
        'The customer the animal goes to: a live customer (`GET /customers`). Required: an order without it is accepted only until the sunset of that form ([API guide](/docs/api.md), "Orders name their customer"), with `Deprecation` and `Sunset` headers',
      ),
      examples: [1],
    }),
    method: Type.Optional(methodRef('How the animal leaves the store; default `sale`')),
  },
  { $id: 'NewOrder', additionalProperties: false, examples: [{ petId: 1, customerId: 1, method: 'sale' }] },
);
export type NewOrder = Static<typeof NewOrder>;

export const OrderUpdate = Type.Object(
  { status: statusRef('Target state: approved, delivered or cancelled, subject to the allowed transitions') },
  { $id: 'OrderUpdate', additionalProperties: false, examples: [{ status: 'approved' }] },
);
export type OrderUpdate = Static<typeof OrderUpdate>;

export const ListOrdersQuery = Type.Object(
  {
    limit: Type.Optional(Limit),
    status: Type.Optional(statusRef('Filters by order status')),
    petId: Type.Optional(Id('Filters by the animal ordered')),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export type ListOrdersQuery = Static<typeof ListOrdersQuery>;

// The export takes the listing's filters, and reads every page itself.
const { limit: _limit, cursor: _cursor, ...orderFilters } = ListOrdersQuery.properties;
export const ExportOrdersQuery = Type.Object(orderFilters, { additionalProperties: false });
export type ExportOrdersQuery = Static<typeof ExportOrdersQuery>;

export const OrderIdParams = Type.Object({ orderId: Id('The identifier of the order') }, { additionalProperties: false });
export type OrderIdParams = Static<typeof OrderIdParams>;
