import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { commonErrors, errorResponse, MALFORMED } from '../schemas.ts';
import type { PetRepository } from '../pets/pet.store.ts';
import { Inventory } from './inventory.schemas.ts';

export const inventoryRoutes: FastifyPluginAsyncTypebox<{ pets: PetRepository; currency: string }> = async (app, { pets, currency }) => {
  app.get(
    '/store/inventory',
    {
      config: { scope: 'pets:read' },
      schema: {
        operationId: 'getInventory',
        tags: ['Store'],
        summary: 'Count the animals by status and value the available ones',
        description:
          'How many animals are `available`, `pending` and `sold` (withdrawn ones not counted). The counts are kept in the same transaction as every change of an animal, so they always match what the listings show at that moment, and reading them costs the same in a store of any size. `availableValue` sums the prices of the available animals per currency, kept the same way.',
        'x-stability': 'experimental',
        response: {
          200: { ...Inventory, description: "The counts; all three keys are always present, and `availableValue` names the store's currency" },
          400: errorResponse`A query parameter was sent (${'validation_failed'}); ${MALFORMED}`,
          ...commonErrors,
        },
      },
    },
    async () => {
      const inventory = await pets.inventory();
      return { ...inventory, availableValue: { [currency]: 0, ...inventory.availableValue } };
    },
  );
};
