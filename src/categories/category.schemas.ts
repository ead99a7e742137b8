import { Type, type Static } from 'typebox';
import { Id, TEXT_PATTERN } from '../schemas.ts';

export const CATEGORY_NAME_MAX = 100;
export const Category = Type.Object(
  {
    id: { ...Id('Identifier of the category'), examples: [1] },
    name: Type.String({ minLength: 1, maxLength: CATEGORY_NAME_MAX, description: 'Display name', examples: ['Dogs'] }),
  },
  { $id: 'Category', additionalProperties: false, examples: [{ id: 1, name: 'Dogs' }] },
);
export type Category = Static<typeof Category>;
export const Categories = Type.Array(Type.Unsafe<Category>({ $ref: 'Category#' }), { $id: 'Categories' });

// The rules of a category's name, for the API and the CLI alike (`petstore categories add`
// validates against NewCategory too); uniqueness is the storage's (category_exists).
const name = Type.String({
  minLength: 1,
  maxLength: CATEGORY_NAME_MAX,
  pattern: TEXT_PATTERN,
  description: 'Display name: 1–100 characters, not blank, no NUL character; unique among categories, ignoring case',
  examples: ['Horses'],
});

export const NewCategory = Type.Object({ name }, { $id: 'NewCategory', additionalProperties: false, examples: [{ name: 'Horses' }] });
export type NewCategory = Static<typeof NewCategory>;

export const CategoryPatch = Type.Object(
  { name },
  {
    $id: 'CategoryPatch',
    additionalProperties: false,
    description: 'A JSON merge patch (RFC 7396) of a Category: its new name',
    examples: [{ name: 'Ponies' }],
  },
);
export type CategoryPatch = Static<typeof CategoryPatch>;

export const CategoryIdParams = Type.Object({ categoryId: Id('The identifier of the category') }, { additionalProperties: false });
