import { Type, type Static } from 'typebox';
import { Id } from '../schemas.ts';

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
