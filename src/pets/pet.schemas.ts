import { Type, type Static } from 'typebox';
import { CalendarDate, Cursor, ErrorBody, Id, Limit, TEXT_PATTERN, Timestamp } from '../schemas.ts';
import { nameKey } from './pet.fold.ts';

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export const PetStatus = Type.Unsafe<PetStatus>({ $id: 'PetStatus', enum: [...PET_STATUSES], type: 'string', description: 'Availability status' });
export type PetStatus = (typeof PET_STATUSES)[number];
const statusRef = Type.Unsafe<PetStatus>({ $ref: 'PetStatus#' });

export const PET_NAME_MAX = 100;
const name = Type.String({
  minLength: 1,
  maxLength: PET_NAME_MAX,
  pattern: TEXT_PATTERN,
  description:
    "The animal's name: 1–100 characters (Unicode code points), not blank (only white space or default-ignorable characters such as U+200B ZERO WIDTH SPACE), no NUL character (U+0000); stored exactly as sent (a lone UTF-16 surrogate, an unpaired `\\ud800`–`\\udfff` escape, names no character: the body is refused, 400 `invalid_json`)",
  examples: ['Rex'],
});
const categoryId = Id('Identifier of the category the animal belongs to (see GET /categories)');

export const PET_DESCRIPTION_MAX = 2_000;
const description = Type.String({
  minLength: 1,
  maxLength: PET_DESCRIPTION_MAX,
  pattern: TEXT_PATTERN,
  description: 'What a customer should know about the animal: 1–2,000 characters, under the same text rules as `name`; searched by `q`',
  examples: ['A friendly Labrador, house-trained'],
});

export const PET_TAGS_MAX = 10;
export const TAG_PATTERN = '^[a-z0-9-]{1,32}$';
export const Tag = Type.String({
  minLength: 1,
  maxLength: 32,
  pattern: TAG_PATTERN,
  description: 'A tag: 1–32 lowercase letters (a–z), digits and `-`',
  examples: ['house-trained'],
});
const tags = Type.Array(Tag, {
  maxItems: PET_TAGS_MAX,
  uniqueItems: true,
  description: 'At most 10 distinct tags, kept in the order given; filter with `GET /pets?tag=`, searched by `q`',
  examples: [['friendly', 'house-trained']],
});

/** The largest price, in minor units: far above any animal's, and exact in a JSON number and a 64-bit integer. */
export const PRICE_MAX = 1_000_000_000_000;
const amount = Type.Integer({
  minimum: 0,
  maximum: PRICE_MAX,
  description: "The price in the currency's minor unit (cents for EUR): 1999 is 19.99",
  examples: [1999],
});
/** Where an animal without a price stands in `sort=price`: after every price (the engines' price indexes use it). */
export const UNPRICED_SORT_KEY = Number.MAX_SAFE_INTEGER;
export const CURRENCY_PATTERN = '^[A-Z]{3}$';
const currency = Type.String({
  pattern: CURRENCY_PATTERN,
  description: "ISO 4217 currency code: the store's (`STORE_CURRENCY`) when the price was set",
  examples: ['EUR'],
});
export const Price = Type.Object(
  { amount, currency },
  {
    $id: 'Price',
    additionalProperties: false,
    description: 'An amount of money in minor units and its currency',
    examples: [{ amount: 1999, currency: 'EUR' }],
  },
);
export type Price = Static<typeof Price>;
const priceRef = (text: string) => Type.Unsafe<Price>({ $ref: 'Price#', description: text });
const priceInput = (text: string) =>
  Type.Object(
    { amount, currency: Type.Optional({ ...currency, description: "Must be the store's currency (`STORE_CURRENCY`) when given" }) },
    { additionalProperties: false, description: text },
  );
export type PriceInput = Static<ReturnType<typeof priceInput>>;

// The animal's legal record (docs/api.md, "The animal's record"): what a pet dealer must keep of each
// animal (New York Agriculture and Markets Law §402, Maryland's breeder licence number, listing partners).
export const RECORD_TEXT_MAX = 100;
const recordText = (maxLength: number, description: string, example: string) =>
  Type.String({ minLength: 1, maxLength, pattern: TEXT_PATTERN, description, examples: [example] });
const breedName = (description: string, example: string) =>
  recordText(RECORD_TEXT_MAX, `${description}: 1–100 characters, under the text rules of \`name\``, example);
export const Breed = Type.Object(
  {
    primary: breedName('The breed, or the main breed of a mixed animal', 'Labrador Retriever'),
    mixed: Type.Optional(Type.Boolean({ description: 'The animal is of mixed breed (`primary` the one it shows most)' })),
    secondary: Type.Optional(breedName('The second breed of a mixed animal; only with `mixed: true`', 'Poodle')),
  },
  {
    additionalProperties: false,
    description:
      'The breed: `primary`, and for a mixed animal `mixed: true` with an optional `secondary` breed. Filter with `GET /pets?breed=` (a word of either breed); searched by `q`',
    examples: [{ primary: 'Labrador Retriever', mixed: true, secondary: 'Poodle' }],
  },
);
export type Breed = Static<typeof Breed>;
export const PET_SEXES = ['male', 'female', 'unknown'] as const;
export type PetSex = (typeof PET_SEXES)[number];
const sex = Type.Unsafe<PetSex>({ type: 'string', enum: [...PET_SEXES], description: 'Sex: `male`, `female` or `unknown` (not yet determined)' });
const neutered = Type.Boolean({ description: 'Neutered (spayed or castrated): `true`, or `false` when it is not' });
const colour = recordText(
  RECORD_TEXT_MAX,
  'Colour and markings: 1–100 characters, under the text rules of `name`; searched by `q`',
  'black with a white blaze',
);
const birthDate = CalendarDate('Birth date; not in the future (later than today everywhere on Earth). With `birthDateEstimated: true` an estimate');
const birthDateEstimated = Type.Boolean({ description: '`birthDate` is an estimate (the age was judged, not known)' });
export const MICROCHIP_MAX = 40;
const microchip = Type.String({
  minLength: 1,
  maxLength: MICROCHIP_MAX,
  description:
    'Microchip (transponder) number: an ISO 11784/11785 number of 15 digits, or a legacy code of 10 hexadecimal characters (FDX-A, Trovan) or 9 digits (AVID). Spaces, hyphens and dots between characters are dropped and letters upper-cased: it is kept and shown normalised. Unique among live animals (409 `microchip_in_use`); find an animal by it with `GET /pets?microchip=`',
  examples: ['985112345678903'],
});
const acquiredAt = CalendarDate('The day the store acquired the animal (born in store: its birth day); not in the future');
export const SOURCE_KINDS = ['breeder', 'supplier', 'private', 'surrender', 'born-in-store', 'transfer'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];
export const Source = Type.Object(
  {
    kind: Type.Unsafe<SourceKind>({
      type: 'string',
      enum: [...SOURCE_KINDS],
      description:
        'Where the animal came from: a `breeder`, a `supplier` (a distributor or another dealer), a `private` person, a `surrender` (an owner gave it up), `born-in-store`, or a `transfer` from another branch or shelter',
    }),
    name: Type.Optional(
      recordText(200, 'The name of the person or business it came from: 1–200 characters; required unless `kind` is `born-in-store`', 'Green Acres Kennels'),
    ),
    address: Type.Optional(recordText(500, 'Their address: 1–500 characters', '12 Farm Road, Albany, NY 12207')),
    licence: Type.Optional(
      recordText(RECORD_TEXT_MAX, "Their licence number (a breeder's or dealer's: Maryland requires the breeder's): 1–100 characters", 'MD-BR-2041'),
    ),
  },
  {
    additionalProperties: false,
    description: 'Where the animal came from: the kind of source, and the name and address of the person or business (NY AGM §402)',
    examples: [{ kind: 'breeder', name: 'Green Acres Kennels', address: '12 Farm Road, Albany, NY 12207', licence: 'MD-BR-2041' }],
  },
);
export type Source = Static<typeof Source>;

/** The members a store may require of every animal's record (RECORD_REQUIRED_FIELDS). */
export const RECORD_FIELDS = ['source', 'acquiredAt', 'birthDate', 'colour', 'sex', 'breed', 'neutered', 'microchip'] as const;
export type RecordField = (typeof RECORD_FIELDS)[number];
/** The default: the list of NY AGM §402 (microchip by RECORD_REQUIRES_MICROCHIP). */
export const RECORD_REQUIRED_DEFAULT: readonly RecordField[] = ['source', 'acquiredAt', 'birthDate', 'colour', 'sex', 'breed'];

/** The record's members, as clients send them (NewPet, PetPatch) and read them (Pet). */
const recordMembers = { breed: Breed, sex, neutered, colour, birthDate, birthDateEstimated, microchip, acquiredAt, source: Source };
const optionalRecord = Object.fromEntries(Object.entries(recordMembers).map(([m, schema]) => [m, Type.Optional(schema)])) as {
  [K in keyof typeof recordMembers]: ReturnType<typeof Type.Optional<(typeof recordMembers)[K]>>;
};

export const NewPet = Type.Object(
  {
    name,
    categoryId: { ...categoryId, examples: [1] },
    status: Type.Optional(Type.Unsafe<PetStatus>({ $ref: 'PetStatus#', description: 'Availability status; defaults to `available`' })),
    description: Type.Optional(description),
    tags: Type.Optional(tags),
    price: Type.Optional(priceInput("The price, in the store's currency; without it the animal has no price")),
    ...optionalRecord,
  },
  { $id: 'NewPet', additionalProperties: false, examples: [{ name: 'Rex', categoryId: 1, status: 'available', tags: ['friendly'], price: { amount: 1999 } }] },
);
export type NewPet = Static<typeof NewPet>;

/** An animal, as the document shows one (Pet, and the pet events' data). */
export const PET_EXAMPLE = {
  id: 1,
  name: 'Rex',
  categoryId: 1,
  status: 'available',
  tags: ['friendly'],
  price: { amount: 1999, currency: 'EUR' },
  breed: { primary: 'Labrador Retriever' },
  sex: 'male',
  colour: 'yellow',
  birthDate: '2026-08-01',
  microchip: '985112345678903',
  recordComplete: false,
  recordMissing: ['source', 'acquiredAt'],
  createdAt: '2026-11-22T12:00:00.000Z',
  updatedAt: '2026-11-22T12:00:00.000Z',
};

export const Pet = Type.Object(
  {
    id: { ...Id('Unique identifier, assigned by the service on creation'), examples: [1] },
    name,
    categoryId: { ...categoryId, examples: [1] },
    status: statusRef,
    description: Type.Optional(description),
    tags,
    price: Type.Optional(priceRef('The price; absent when the animal has none')),
    ...optionalRecord,
    recordComplete: Type.Boolean({
      description:
        "Whether the animal's record holds every member the store requires (`RECORD_REQUIRED_FIELDS`; read-only). List the incomplete ones with `GET /pets?recordComplete=false`",
    }),
    recordMissing: Type.Array(Type.Unsafe<RecordField>({ type: 'string', enum: [...RECORD_FIELDS] }), {
      uniqueItems: true,
      description: 'The members the store requires that the record lacks, in the order of `RECORD_REQUIRED_FIELDS` (read-only); empty when complete',
      examples: [['source', 'acquiredAt']],
    }),
    photoUrls: Type.Optional(
      Type.Array(Type.String({ format: 'uri-reference' }), {
        minItems: 1,
        maxItems: 10,
        description:
          "The animal's photos, oldest first: where each display image is served (`GET /photos/{hash}`, public and immutable). Absent while the animal has none. Read-only: photos are added with `POST /pets/{petId}/photos`",
        examples: [['/v1/photos/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08']],
      }),
    ),
    createdAt: Timestamp('When the animal was added (read-only)'),
    updatedAt: Timestamp('When the animal last changed: its fields, or its status through an order (read-only)'),
  },
  {
    $id: 'Pet',
    additionalProperties: false,
    examples: [PET_EXAMPLE],
  },
);
// status, tags and the timestamps are always present in responses, so the domain type requires them.
export type Pet = Static<typeof Pet>;

/** How the engines keep a member in its columns; storage/rows.ts holds each kind's encoding. */
export type PetFieldKind = 'integer' | 'text' | 'timestamp' | 'list' | 'price' | 'photos' | 'boolean' | 'json';

/**
 * One member of the Pet schema as the engines keep it. Whether a client may send it (NewPet) or
 * change it (PetPatch) is the schemas' to say; this says what they cannot.
 */
export interface PetField {
  readonly member: keyof Pet;
  /** Its columns of `pets`, in the order its kind encodes them. */
  readonly columns: readonly string[];
  readonly kind: PetFieldKind;
  /**
   * Which statements of the pet write it: `always` (the insert and every update), `insert` (set
   * once), `never` (the engine assigns it, or another statement keeps it: `photoUrls`, PhotoTx).
   * The record's state (`recordComplete`, `recordMissing`) is written with every write: the pets
   * domain computes it (pets/pet.record.ts).
   */
  readonly written: 'always' | 'insert' | 'never';
  /** Its words are found by `q` (pets/pet.search.ts). */
  readonly searched?: true;
  /**
   * Listings may sort by it (`sort=member`, `-member`, ties by id). `value` is a pet's place in that
   * order, what a keyset cursor carries (pets/pet.listing.ts); the engines compare the same value
   * (storage/sql/sql.pet-list.ts): its `column` when given (a key the engines keep beside the
   * field), else its one column, a price by its amount with UNPRICED_SORT_KEY for none. An index on
   * that expression and id must exist on both engines (docs/contributing.md).
   */
  readonly sortable?: { readonly value: (pet: Pet) => string | number; readonly column?: string };
}

/**
 * The pet's fields, in the Pet schema's order (the order a pet's members are read back in). The
 * column list, the INSERT and UPDATE of a pet and their parameters, the row → Pet mapping
 * (storage/), a patch's change detection and the search text (pets/) all follow from it;
 * test/unit/pet-fields.test.ts checks it names every member of Pet once. Adding a field:
 * docs/contributing.md.
 */
export const PET_FIELDS: readonly PetField[] = [
  { member: 'id', columns: ['id'], kind: 'integer', written: 'never' },
  { member: 'name', columns: ['name'], kind: 'text', written: 'always', searched: true, sortable: { value: (pet) => nameKey(pet.name), column: 'name_key' } },
  { member: 'categoryId', columns: ['category_id'], kind: 'integer', written: 'always' },
  { member: 'status', columns: ['status'], kind: 'text', written: 'always' },
  { member: 'description', columns: ['description'], kind: 'text', written: 'always', searched: true },
  { member: 'tags', columns: ['tags'], kind: 'list', written: 'always', searched: true },
  {
    member: 'price',
    columns: ['price_amount', 'price_currency'],
    kind: 'price',
    written: 'always',
    sortable: { value: (pet) => pet.price?.amount ?? UNPRICED_SORT_KEY },
  },
  { member: 'breed', columns: ['breed'], kind: 'json', written: 'always', searched: true },
  { member: 'sex', columns: ['sex'], kind: 'text', written: 'always' },
  { member: 'neutered', columns: ['neutered'], kind: 'boolean', written: 'always' },
  { member: 'colour', columns: ['colour'], kind: 'text', written: 'always', searched: true },
  { member: 'birthDate', columns: ['birth_date'], kind: 'text', written: 'always' },
  { member: 'birthDateEstimated', columns: ['birth_date_estimated'], kind: 'boolean', written: 'always' },
  { member: 'microchip', columns: ['microchip'], kind: 'text', written: 'always' },
  { member: 'acquiredAt', columns: ['acquired_at'], kind: 'text', written: 'always' },
  { member: 'source', columns: ['source'], kind: 'json', written: 'always' },
  { member: 'recordComplete', columns: ['record_complete'], kind: 'boolean', written: 'always' },
  { member: 'recordMissing', columns: ['record_missing'], kind: 'list', written: 'always' },
  { member: 'photoUrls', columns: ['photos'], kind: 'photos', written: 'never' },
  { member: 'createdAt', columns: ['created_at'], kind: 'timestamp', written: 'insert', sortable: { value: (pet) => pet.createdAt } },
  { member: 'updatedAt', columns: ['updated_at'], kind: 'timestamp', written: 'always' },
];

/** `a`, `b` or `c`: a list of members for the prose of the document, built from the schemas so it cannot drift. */
export function listed(members: readonly string[], conjunction: 'and' | 'or', quote = '`'): string {
  const q = members.map((m) => `${quote}${m}${quote}`);
  return q.length < 2 ? q.join('') : `${q.slice(0, -1).join(', ')} ${conjunction} ${q.at(-1)}`;
}
function nullable(schema: object): boolean {
  return 'anyOf' in schema && (schema.anyOf as { type?: string }[]).some((member) => member.type === 'null');
}

/** The members search reads, in the table's order. */
export const SEARCHED_MEMBERS = PET_FIELDS.filter((f) => f.searched).map((f) => f.member);

const patchMembers = {
  name: Type.Optional(name),
  categoryId: Type.Optional({ ...categoryId, examples: [2] }),
  status: Type.Optional(Type.Unsafe<PetStatus>({ $ref: 'PetStatus#', description: 'Availability status; refused while an order for the animal is open' })),
  description: Type.Optional(Type.Union([description, Type.Null()], { description: 'The new description; `null` removes it' })),
  tags: Type.Optional(Type.Union([tags, Type.Null()], { description: 'The new tags, replacing the old ones; `null` (or `[]`) removes them all' })),
  price: Type.Optional(
    Type.Union([priceInput("The new price, in the store's currency (`amount` is required: a price is set whole)"), Type.Null()], {
      description: 'The new price; `null` removes it',
    }),
  ),
  ...(Object.fromEntries(
    Object.entries(recordMembers).map(([m, schema]) => [
      m,
      Type.Optional(Type.Union([schema, Type.Null()], { description: `The new \`${m}\`; \`null\` removes it` })),
    ]),
  ) as {
    [K in keyof typeof recordMembers]: ReturnType<
      typeof Type.Optional<ReturnType<typeof Type.Union<[(typeof recordMembers)[K], ReturnType<typeof Type.Null>]>>>
    >;
  }),
};
// What `null` does to each member, from the members' own schemas: it removes those that accept it.
const removable = Object.keys(patchMembers).filter((m) => nullable(patchMembers[m as keyof typeof patchMembers]));
const required = Object.keys(patchMembers).filter((m) => !removable.includes(m));
const readOnly = Object.keys(Pet.properties).filter((m) => !(m in patchMembers));
export const PetPatch = Type.Object(patchMembers, {
  $id: 'PetPatch',
  additionalProperties: false,
  minProperties: 1,
  description: `A JSON merge patch (RFC 7396) of a Pet: the fields given are set, the others kept. \`null\` removes ${listed(removable, 'or')}; it is refused for ${listed(required, 'and')}, which every animal has. ${listed(readOnly, 'and')} are read-only.`,
  examples: [{ name: 'Rex II' }],
});
export type PetPatch = Static<typeof PetPatch>;

/** An animal in a listing: the Pet with its entity tag, so that no client needs the deprecated getPet to learn it. */
export const ListedPet = Type.Object(
  {
    ...Pet.properties,
    etag: Type.String({
      description:
        "The animal's entity tag: the `ETag` its own representation (the Pet without this member) has. Send it in `If-Match` to change or withdraw the animal only while it is unchanged",
      examples: ['"A3ciOOg9sHgjg6QfwHTbfP"'],
    }),
  },
  {
    $id: 'ListedPet',
    additionalProperties: false,
    description: 'An animal with its entity tag',
    examples: ((Pet as { examples?: object[] }).examples ?? []).map((pet) => ({ ...pet, etag: '"A3ciOOg9sHgjg6QfwHTbfP"' })),
  },
);
export type ListedPet = Static<typeof ListedPet>;

export const Pets = Type.Array(Type.Unsafe<ListedPet>({ $ref: 'ListedPet#' }), {
  $id: 'Pets',
  description: 'A page of animals, each with its entity tag, in the order `sort` names (ascending by id by default)',
});

/**
 * What a page of a search or tag filter in another order than id may cost: when the filter's index
 * holds at most SORTED_FEW matches they are read and sorted; beyond that the sort's index is walked,
 * at most SEARCH_WALK animals a page (storage/sql/sql.pet-list.ts; figures in docs/performance.md).
 */
export const SORTED_FEW = 10_000;
export const SEARCH_WALK = 20_000;

/** The most ids one listing may ask for (`id=1&id=2…`). */
export const PET_IDS_MAX = 100;

/** The fields a listing may sort by besides id (PET_FIELDS' `sortable`), in the table's order. */
export const SORTED_FIELDS = PET_FIELDS.filter((f) => f.sortable !== undefined);
/** The orders of a listing: by id (the default), then each sortable field; a leading `-` reverses one. */
export type PetSort = `${'' | '-'}${keyof Pet}`;
export const PET_SORTS: readonly PetSort[] = ['id' as const, ...SORTED_FIELDS.map((f) => f.member)].flatMap((m): PetSort[] => [m, `-${m}`]);
export const Q_MAX = 200;

export const ListPetsQuery = Type.Object(
  {
    limit: Type.Optional(Limit),
    status: Type.Optional(Type.Unsafe<PetStatus>({ $ref: 'PetStatus#', description: 'Filters by availability status' })),
    categoryId: Type.Optional(Id('Filters by category; combinable with `status`')),
    id: Type.Optional(
      Type.Array(Id('An animal to list'), {
        minItems: 1,
        maxItems: PET_IDS_MAX,
        uniqueItems: true,
        description:
          'The animals with these ids (repeat the parameter: `id=3&id=7`, at most 100, each once): how a client reads one animal and its `etag` without the deprecated getPet. Ids of withdrawn or unknown animals are left out, not refused. Combinable with `status` and `categoryId`; not with `q` or `tag`; ordered by id (`sort=id` or `-id`)',
      }),
    ),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: Q_MAX,
        pattern: TEXT_PATTERN,
        description: `Search: animals whose ${listed(SEARCHED_MEMBERS, 'or', '')} contain every word of \`q\`, each as a word or the start of one (\`lab\` finds "Labrador"), ignoring case and accents. Words are runs of letters and digits, at most 200 characters; a \`q\` without any (punctuation only) filters nothing. Combinable with every filter and every \`sort\``,
        examples: ['lab fri'],
      }),
    ),
    tag: Type.Optional(
      Type.Array(Tag, {
        minItems: 1,
        maxItems: PET_TAGS_MAX,
        description: 'Animals carrying every tag given (repeat the parameter: `tag=a&tag=b`, at most 10); combinable with every filter and every `sort`',
      }),
    ),
    sex: Type.Optional({ ...sex, description: 'Animals of this sex; combinable with every filter and every `sort`' }),
    breed: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: RECORD_TEXT_MAX,
        pattern: TEXT_PATTERN,
        description:
          'Animals whose breed (`primary` or `secondary`) has every word of `breed` as a whole word, ignoring case and accents: `poodle` finds "Toy Poodle", not "Poodles"; at least one letter or digit. Combinable with every filter and every `sort`',
        examples: ['labrador'],
      }),
    ),
    recordComplete: Type.Optional(
      Type.Unsafe<'true' | 'false'>({
        type: 'string',
        enum: ['true', 'false'],
        description:
          '`false`: the animals whose record lacks a field the store requires (`recordMissing`), what staff must finish; `true`: those with a complete record. Combinable with every filter and every `sort`',
      }),
    ),
    microchip: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MICROCHIP_MAX,
        description:
          'The animal with this microchip number, compared normalised (spaces, hyphens and dots dropped, letters upper-cased); at most one live animal has it',
        examples: ['985 112 345 678 903'],
      }),
    ),
    sort: Type.Optional(
      Type.Unsafe<PetSort>({
        type: 'string',
        enum: [...PET_SORTS],
        description: `Order of the listing: by \`id\` (the default), \`name\` (ignoring case and accents), \`price\` (animals without a price last) or \`createdAt\`; a leading \`-\` reverses it. Ties are broken by id in the same direction. Every sort combines with every filter. A page reads at most about ${SEARCH_WALK.toLocaleString('en')} animals: when \`q\` or \`tag\` matches more than ${SORTED_FEW.toLocaleString('en')} and few of them lie near the page's place in this order, a page may hold fewer animals than \`limit\`, even none, and still have a \`next\` link ([API guide](/docs/api.md), "Search, tags and sort orders")`,
      }),
    ),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export type ListPetsQuery = Static<typeof ListPetsQuery>;

// The export takes the listing's filters and sort, and reads every page itself.
const { limit: _limit, cursor: _cursor, ...petFilters } = ListPetsQuery.properties;
export const ExportPetsQuery = Type.Object(petFilters, { additionalProperties: false });
export type ExportPetsQuery = Static<typeof ExportPetsQuery>;

export const PetIdParams = Type.Object({ petId: Id('The identifier of the animal') }, { additionalProperties: false });
export type PetIdParams = Static<typeof PetIdParams>;

/** The most animals one bulk change names (POST /pets/bulk). */
export const BULK_MAX_IDS = 500;

export const BulkPetChange = Type.Object(
  {
    ids: Type.Array(Id('An animal to change'), {
      minItems: 1,
      maxItems: BULK_MAX_IDS,
      uniqueItems: true,
      description: `The animals to change: 1 to ${BULK_MAX_IDS} distinct ids`,
    }),
    patch: Type.Unsafe<PetPatch>({ $ref: 'PetPatch#' }),
  },
  {
    $id: 'BulkPetChange',
    additionalProperties: false,
    description: 'The same merge patch (PetPatch) for each of `ids`',
    examples: [{ ids: [1, 2], patch: { status: 'sold' } }],
  },
);
export type BulkPetChange = Static<typeof BulkPetChange>;

export const BulkRefusal = Type.Object(
  {
    id: Id('The animal refused'),
    error: Type.Object(
      {
        code: ErrorBody.properties.code,
        message: ErrorBody.properties.message,
        status: ErrorBody.properties.status,
      },
      { additionalProperties: false, description: 'Why: the error the single PATCH of this animal would have answered' },
    ),
  },
  { additionalProperties: false },
);
export type BulkRefusal = Static<typeof BulkRefusal>;

export const BulkResult = Type.Object(
  {
    updated: Type.Array(Type.Unsafe<Pet>({ $ref: 'Pet#' }), {
      description:
        'The animals the patch applied to, after it, ascending by id (an animal that already had every value given is here, unchanged, with no event)',
    }),
    refused: Type.Array(BulkRefusal, { description: 'The animals refused, ascending by id, each with its error; nothing of them changed' }),
  },
  {
    $id: 'BulkResult',
    additionalProperties: false,
    description: 'What a bulk change did, animal by animal',
    examples: [
      {
        updated: [{ ...PET_EXAMPLE, status: 'sold' }],
        refused: [
          {
            id: 2,
            error: {
              code: 'pet_has_open_order',
              message: 'pet 2 has an open order (placed or approved), so its status cannot be changed; cancel or deliver the order first',
              status: 409,
            },
          },
        ],
      },
    ],
  },
);
export type BulkResult = Static<typeof BulkResult>;
