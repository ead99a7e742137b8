import type { NewPet } from '../../src/pets/pet.schemas.ts';
import { newPetRecord } from '../../src/pets/pet.service.ts';
import type { PetCreate } from '../../src/pets/pet.store.ts';

/** The row a pet is inserted as, for tests that write through the storage directly (EUR prices, now unless told). */
export function petRecord(input: NewPet, at = new Date()): PetCreate {
  return { ...newPetRecord(input, 'EUR'), at };
}

/** The record state of an animal with no record yet, under the default RECORD_REQUIRED_FIELDS. */
export const NO_RECORD = Object.freeze({ recordComplete: false, recordMissing: ['source', 'acquiredAt', 'birthDate', 'colour', 'sex', 'breed'] });
