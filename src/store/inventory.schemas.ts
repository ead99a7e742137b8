import { Type, type Static } from 'typebox';
import { CURRENCY_PATTERN, PRICE_MAX } from '../pets/pet.schemas.ts';

const count = (status: string) => Type.Integer({ minimum: 0, description: `Animals that are ${status} (withdrawn ones not counted)` });

export const Inventory = Type.Object(
  {
    available: count('available'),
    pending: count('pending'),
    sold: count('sold'),
    availableValue: Type.Record(Type.String({ pattern: CURRENCY_PATTERN }), Type.Integer({ minimum: 0, maximum: PRICE_MAX * 1_000 }), {
      description:
        "What the available animals are worth: the sum of their prices in minor units, per currency (ISO 4217). The store's currency (`STORE_CURRENCY`) is always present, 0 when nothing available has a price; another appears only while available animals still carry prices set under an earlier `STORE_CURRENCY`.",
      examples: [{ EUR: 123_450 }],
    }),
  },
  {
    $id: 'Inventory',
    additionalProperties: false,
    description: 'How many animals the store has in each status; the three always sum to the animals listed by GET /pets',
    examples: [{ available: 12, pending: 3, sold: 40, availableValue: { EUR: 123_450 } }],
  },
);
export type Inventory = Static<typeof Inventory>;
