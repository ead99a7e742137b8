import { Type, type Static } from 'typebox';
import { Cursor, Id, Limit, TEXT_PATTERN } from '../schemas.ts';

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
    "The animal's name: 1–100 characters (Unicode code points), not only white space, no NUL character (U+0000); stored as sent, except that a lone UTF-16 surrogate (an unpaired `\\ud800`–`\\udfff` escape) is stored and returned as U+FFFD",
  examples: ['Rex'],
});
const categoryId = Id('Identifier of the category the animal belongs to (see GET /categories)');

export const NewPet = Type.Object(
  {
    name,
    categoryId: { ...categoryId, examples: [1] },
    status: Type.Optional(Type.Unsafe<PetStatus>({ $ref: 'PetStatus#', description: 'Availability status; defaults to `available`' })),
  },
  { $id: 'NewPet', additionalProperties: false, examples: [{ name: 'Rex', categoryId: 1, status: 'available' }] },
);
export type NewPet = Static<typeof NewPet>;

export const Pet = Type.Object(
  {
    id: { ...Id('Unique identifier, assigned by the service on creation'), examples: [1] },
    name,
    categoryId: { ...categoryId, examples: [1] },
    status: statusRef,
    photoUrls: Type.Optional(
      Type.Array(Type.String({ format: 'uri-reference' }), {
        minItems: 1,
        maxItems: 10,
        description:
          "The animal's photos, oldest first: where each display image is served (`GET /photos/{hash}`, public and immutable). Absent while the animal has none. Read-only: photos are added with `POST /pets/{petId}/photos`",
        examples: [['/v1/photos/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08']],
      }),
    ),
  },
  { $id: 'Pet', additionalProperties: false, examples: [{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }] },
);
// status is always present in responses (it defaults on creation), so the domain type requires it.
export type Pet = Static<typeof Pet>;

export const PetPatch = Type.Object(
  {
    name: Type.Optional(name),
    categoryId: Type.Optional({ ...categoryId, examples: [2] }),
    status: Type.Optional(Type.Unsafe<PetStatus>({ $ref: 'PetStatus#', description: 'Availability status; refused while an order for the animal is open' })),
  },
  {
    $id: 'PetPatch',
    additionalProperties: false,
    minProperties: 1,
    description:
      'A JSON merge patch (RFC 7396) of a Pet: the fields given are set, the others kept. `null` removes nothing here (every field is required) and is refused.',
    examples: [{ name: 'Rex II' }],
  },
);
export type PetPatch = Static<typeof PetPatch>;

export const Pets = Type.Array(Type.Unsafe<Pet>({ $ref: 'Pet#' }), { $id: 'Pets', description: 'A page of animals, ascending by id' });

export const ListPetsQuery = Type.Object(
  {
    limit: Type.Optional(Limit),
    status: Type.Optional(Type.Unsafe<PetStatus>({ $ref: 'PetStatus#', description: 'Filters by availability status' })),
    categoryId: Type.Optional(Id('Filters by category; combinable with `status`')),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export type ListPetsQuery = Static<typeof ListPetsQuery>;

export const PetIdParams = Type.Object({ petId: Id('The identifier of the animal') }, { additionalProperties: false });
export type PetIdParams = Static<typeof PetIdParams>;
