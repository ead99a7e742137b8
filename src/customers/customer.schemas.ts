import { Type, type Static } from 'typebox';
import { BoundedText as text, Cursor, Id, Limit, TEXT_PATTERN, Timestamp } from '../schemas.ts';
import type { Hold } from '../holds/hold.schemas.ts';
import type { Order } from '../store/order.schemas.ts';
import { COUNTRIES, type Country } from './countries.ts';

export const CUSTOMER_NAME_MAX = 200;
export const CUSTOMER_EMAIL_MAX = 254;
export const CUSTOMER_NOTES_MAX = 2_000;
export const ADDRESS_LINE_MAX = 200;
export const ADDRESS_CITY_MAX = 100;
export const ADDRESS_POSTAL_CODE_MAX = 20;
export const ADDRESS_REGION_MAX = 100;
export const CUSTOMER_Q_MAX = 100;

const name = text(CUSTOMER_NAME_MAX, 'The name the customer gives: a person, or the organisation buying', 'Alex Doe');
const email = Type.String({
  format: 'email',
  maxLength: CUSTOMER_EMAIL_MAX,
  description: `An e-mail address (RFC 5321 form, \`local@domain\`), up to ${CUSTOMER_EMAIL_MAX} characters`,
  examples: ['alex@example.com'],
});
/** Digits with the separators people write them with, an optional leading `+`: 4–32 characters. */
export const PHONE_PATTERN = '^\\+?[0-9(][0-9 ().-]{2,30}[0-9]$';
const phone = Type.String({
  pattern: PHONE_PATTERN,
  description: 'A telephone number: digits, an optional leading `+`, and spaces, brackets, dots or hyphens between them; 4–32 characters',
  examples: ['+44 20 7946 0958'],
});
const notes = text(CUSTOMER_NOTES_MAX, 'What staff keep about the customer (not shown to them)', 'Prefers to be called in the afternoon');
const country = Type.Unsafe<Country>({
  type: 'string',
  enum: [...COUNTRIES],
  description: 'The country: an ISO 3166-1 alpha-2 code in capitals (`DE`, `GB`, `US`), one of the 249 officially assigned',
  examples: ['GB'],
});

const addressMembers = {
  line1: text(ADDRESS_LINE_MAX, 'The first line: street and number, or the building', '221B Baker Street'),
  line2: text(ADDRESS_LINE_MAX, 'A second line: flat, floor, care of', 'Flat 2'),
  city: text(ADDRESS_CITY_MAX, 'The city, town or village', 'London'),
  postalCode: text(ADDRESS_POSTAL_CODE_MAX, 'The postal code (ZIP code) as the country writes it', 'NW1 6XE'),
  region: text(ADDRESS_REGION_MAX, 'The state, province, county or region, where the country uses one', 'Greater London'),
  country,
};

export const Address = Type.Object(
  {
    line1: addressMembers.line1,
    line2: Type.Optional(addressMembers.line2),
    city: addressMembers.city,
    postalCode: addressMembers.postalCode,
    region: Type.Optional(addressMembers.region),
    country: addressMembers.country,
  },
  {
    $id: 'Address',
    additionalProperties: false,
    description: 'A postal address',
    examples: [{ line1: '221B Baker Street', city: 'London', postalCode: 'NW1 6XE', country: 'GB' }],
  },
);
export type Address = Static<typeof Address>;
const address = Type.Unsafe<Address>({ $ref: 'Address#', description: 'Where the customer lives: the address a sale record names' });

const EXAMPLE = {
  id: 1,
  name: 'Alex Doe',
  email: 'alex@example.com',
  phone: '+44 20 7946 0958',
  address: { line1: '221B Baker Street', city: 'London', postalCode: 'NW1 6XE', country: 'GB' },
  createdAt: '2026-11-22T12:00:00.000Z',
  updatedAt: '2026-11-22T12:00:00.000Z',
};

export const Customer = Type.Object(
  {
    id: { ...Id('Unique identifier, assigned by the service; never reused'), examples: [1] },
    name,
    email: Type.Optional(email),
    phone: Type.Optional(phone),
    address,
    notes: Type.Optional(notes),
    createdAt: Timestamp('When the customer was added'),
    updatedAt: Timestamp('When the customer last changed'),
  },
  {
    $id: 'Customer',
    additionalProperties: false,
    description: 'A person or organisation the store sells to, holds animals for, or hands animals over to. Personal data: read with `customers:read`',
    examples: [EXAMPLE],
  },
);
export type Customer = Static<typeof Customer>;

/** A listed customer: the Customer and its entity tag, which If-Match accepts (as a listed pet carries its own). */
export const ListedCustomer = Type.Object(
  {
    ...Customer.properties,
    etag: Type.String({ description: "The customer's entity tag: what `ETag` would say of it, for `If-Match`", examples: ['"kP3v0bLQ7m2mX1Y9Zr4aQw"'] }),
  },
  {
    $id: 'ListedCustomer',
    additionalProperties: false,
    description: 'A customer as a listing shows it: with its entity tag',
    examples: [{ ...EXAMPLE, etag: '"kP3v0bLQ7m2mX1Y9Zr4aQw"' }],
  },
);
export const Customers = Type.Array(Type.Unsafe<Customer & { etag: string }>({ $ref: 'ListedCustomer#' }), {
  $id: 'Customers',
  description: 'A page of customers, ascending by id',
});

export const NewCustomer = Type.Object(
  { name, email: Type.Optional(email), phone: Type.Optional(phone), address, notes: Type.Optional(notes) },
  {
    $id: 'NewCustomer',
    additionalProperties: false,
    examples: [{ name: 'Alex Doe', email: 'alex@example.com', address: { line1: '221B Baker Street', city: 'London', postalCode: 'NW1 6XE', country: 'GB' } }],
  },
);
export type NewCustomer = Static<typeof NewCustomer>;

const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

/** The address members a merge patch sets: absent ones are kept, `null` removes an optional one. */
export const AddressPatch = Type.Object(
  {
    line1: Type.Optional(addressMembers.line1),
    line2: Type.Optional(nullable(addressMembers.line2)),
    city: Type.Optional(addressMembers.city),
    postalCode: Type.Optional(addressMembers.postalCode),
    region: Type.Optional(nullable(addressMembers.region)),
    country: Type.Optional(addressMembers.country),
  },
  { additionalProperties: false, minProperties: 1, description: 'The members of the address to change (a merge patch of its own: the others are kept)' },
);

export const CustomerPatch = Type.Object(
  {
    name: Type.Optional(name),
    email: Type.Optional(nullable(email)),
    phone: Type.Optional(nullable(phone)),
    address: Type.Optional(AddressPatch),
    notes: Type.Optional(nullable(notes)),
  },
  {
    $id: 'CustomerPatch',
    additionalProperties: false,
    minProperties: 1,
    description: 'A JSON merge patch (RFC 7396) of a customer: absent members are kept, `null` removes an optional one',
    examples: [{ phone: '+44 20 7946 0000', address: { line2: 'Flat 2' } }],
  },
);
export type CustomerPatch = Static<typeof CustomerPatch>;

export const CustomerIdParams = Type.Object({ customerId: Id('The identifier of the customer') }, { additionalProperties: false });
export type CustomerIdParams = Static<typeof CustomerIdParams>;

export const ListCustomersQuery = Type.Object(
  {
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: CUSTOMER_Q_MAX,
        pattern: TEXT_PATTERN,
        description:
          'Search: customers whose name, e-mail address or telephone number contains `q`, ignoring case; a `q` written as a telephone number (digits with spaces, brackets, dots, hyphens or a leading `+`) finds the number however it was written',
        examples: ['doe'],
      }),
    ),
    limit: Type.Optional(Limit),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export type ListCustomersQuery = Static<typeof ListCustomersQuery>;

// The CSV export takes the listing's search, and reads every page itself.
const { limit: _limit, cursor: _cursor, ...customerFilters } = ListCustomersQuery.properties;
export const ExportCustomersQuery = Type.Object(customerFilters, { additionalProperties: false });
export type ExportCustomersQuery = Static<typeof ExportCustomersQuery>;

/** A customer as the store holds it, withdrawn and erased ones included: what an export shows. */
export const CustomerRecord = Type.Object(
  {
    id: Customer.properties.id,
    name: Type.Optional(name),
    email: Type.Optional(email),
    phone: Type.Optional(phone),
    address: Type.Optional(address),
    notes: Type.Optional(notes),
    createdAt: Customer.properties.createdAt,
    updatedAt: Customer.properties.updatedAt,
    withdrawnAt: Type.Optional(Timestamp('When the customer was withdrawn (or erased); absent while live')),
    erasedAt: Type.Optional(Timestamp("When the customer's personal data was erased; absent unless it was")),
    retainedUntil: Type.Optional(
      Timestamp('Until when the name and address an erasure kept for the sale records are held; they are erased then. Absent when nothing is kept'),
    ),
  },
  {
    $id: 'CustomerRecord',
    additionalProperties: false,
    description: 'What the store holds on a customer: a live one in full; after an erasure, only what the sale records must keep, and until when',
    examples: [EXAMPLE],
  },
);
export type CustomerRecord = Static<typeof CustomerRecord>;

/** The members of a customer an erasure may keep for the sale records (NY Agric. & Mkts. Law §402: the buyer's name and address). */
export const KEPT_FOR_SALES = ['name', 'address'] as const;

export const CustomerErasure = Type.Object(
  {
    id: Customer.properties.id,
    erasedAt: Timestamp('When the personal data was erased'),
    kept: Type.Array(Type.Unsafe<(typeof KEPT_FOR_SALES)[number]>({ type: 'string', enum: [...KEPT_FOR_SALES] }), {
      description:
        'What was kept: the name and address when the customer bought, adopted or took over an animal (a delivered order), since the sale record must keep them for `SALE_RECORD_RETENTION_DAYS`; else nothing. Everything else (e-mail, telephone, notes) is gone',
    }),
    keptUntil: Type.Optional(Timestamp('When what was kept is erased too (by the service, on its own): the last sale plus the retention period')),
    reason: Type.Optional(Type.String({ description: 'Why something was kept, in words for people' })),
  },
  {
    $id: 'CustomerErasure',
    additionalProperties: false,
    description: 'What an erasure removed and what it kept',
    examples: [
      {
        id: 1,
        erasedAt: '2026-11-22T12:00:00.000Z',
        kept: ['name', 'address'],
        keptUntil: '2028-11-21T12:00:00.000Z',
        reason: "the sale record of order 7 keeps the buyer's name and address for 730 days after the sale",
      },
    ],
  },
);
export type CustomerErasure = Static<typeof CustomerErasure>;

export const CustomerExport = Type.Object(
  {
    exportedAt: Timestamp('When the export was made'),
    customer: Type.Unsafe<CustomerRecord>({ $ref: 'CustomerRecord#', description: 'The customer as the store holds it' }),
    orders: Type.Array(Type.Unsafe<Order>({ $ref: 'Order#' }), { description: "The customer's orders (their sale records), ascending by id" }),
    holds: Type.Array(Type.Unsafe<Hold>({ $ref: 'Hold#' }), { description: 'The animals held for the customer, live or ended, ascending by id' }),
  },
  {
    $id: 'CustomerExport',
    additionalProperties: false,
    examples: [
      {
        exportedAt: '2026-11-23T09:00:00.000Z',
        customer: EXAMPLE,
        orders: [
          { id: 7, petId: 1, customerId: 1, status: 'delivered', method: 'sale', createdAt: '2026-11-22T12:00:00.000Z', updatedAt: '2026-11-22T15:00:00.000Z' },
        ],
        holds: [],
      },
    ],
    description:
      "Everything the store holds on one person (GDPR Art. 15 and 20), as JSON: the customer, every order naming them and every hold for them. Events and webhook deliveries carry only the customer's id",
  },
);
export type CustomerExport = Static<typeof CustomerExport>;
