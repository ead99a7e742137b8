import { Type, type Static } from 'typebox';

const count = (status: string) => Type.Integer({ minimum: 0, description: `Animals that are ${status} (withdrawn ones not counted)` });

export const Inventory = Type.Object(
  { available: count('available'), pending: count('pending'), sold: count('sold') },
  {
    $id: 'Inventory',
    additionalProperties: false,
    description: 'How many animals the store has in each status; the three always sum to the animals listed by GET /pets',
    examples: [{ available: 12, pending: 3, sold: 40 }],
  },
);
export type Inventory = Static<typeof Inventory>;
