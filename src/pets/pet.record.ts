// The animal's legal record (docs/api.md, "The animal's record"): the rules its members follow
// beyond what their schemas state — a microchip number's forms and its one spelling, who a source
// must name, the dates — and when a record is complete. One place for each; the engines store
// what these return.
import { assertNotFuture } from '../calendar.ts';
import { AppError, invalid } from '../errors.ts';
import { RECORD_FIELDS, RECORD_REQUIRED_DEFAULT, type Breed, type Pet, type RecordField } from './pet.schemas.ts';
import { words } from './pet.search.ts';

/** What the store requires of every record (RECORD_REQUIRED_FIELDS, RECORD_REQUIRES_MICROCHIP), in RECORD_FIELDS' order. */
export type RecordRule = readonly RecordField[];

/** The rule from the settings: the fields named, and microchip when required; each once, in RECORD_FIELDS' order. */
export function recordRule(required: readonly RecordField[], requiresMicrochip: boolean): RecordRule {
  return RECORD_FIELDS.filter((f) => required.includes(f) || (f === 'microchip' && requiresMicrochip));
}

/** The rule with the settings' defaults: NY AGM §402's list, no microchip. */
export const DEFAULT_RECORD_RULE = recordRule(RECORD_REQUIRED_DEFAULT, false);

/** The record's state under `rule`: the required members it lacks, and whether it lacks none. */
export function recordState(pet: Partial<Pet>, rule: RecordRule): Pick<Pet, 'recordComplete' | 'recordMissing'> {
  const recordMissing = rule.filter((f) => pet[f] === undefined);
  return { recordComplete: recordMissing.length === 0, recordMissing };
}

// ISO 11784/11785 (FDX-B, HDX): 15 decimal digits, a country or manufacturer code then the animal's
// number. Legacy chips still found in animals: 10 hexadecimal characters (FDX-A, Trovan) and AVID's
// 9 digits, which readers show with separators ("AVID*012*345*678" prints as 012*345*678).
const SEPARATORS = /[\s.*-]+/g;
const FORMS = /^(?:\d{15}|[0-9A-F]{10}|\d{9})$/;

/** The one spelling of a microchip number — separators dropped, letters upper case — or 400 naming `field`. */
export function normaliseMicrochip(given: string, field: { in: 'body' | 'query'; field: string }): string {
  const chip = given.replace(SEPARATORS, '').toUpperCase();
  if (!FORMS.test(chip)) {
    throw invalid(
      `${field.in} ${field.in === 'body' ? 'field' : 'parameter'} "${field.field}" must be a microchip number: 15 digits (ISO 11784/11785), or a legacy code of 10 hexadecimal characters or 9 digits; spaces, hyphens, dots and * between them are ignored`,
      { ...field, rule: 'pattern', message: 'a microchip number has 15 digits (or, on an older chip, 10 letters and digits, or 9 digits)' },
    );
  }
  return chip;
}

/** The record's members as the pet keeps them, checked: what the schemas cannot say. `now` dates the checks. */
export function checkRecord(pet: Partial<Pet>, now: Date): void {
  if (pet.birthDate !== undefined) assertNotFuture('birthDate', pet.birthDate, now);
  if (pet.acquiredAt !== undefined) assertNotFuture('acquiredAt', pet.acquiredAt, now);
  if (pet.birthDate !== undefined && pet.acquiredAt !== undefined && pet.acquiredAt < pet.birthDate) {
    throw invalid(`body field "acquiredAt" must be on or after "birthDate" (${pet.birthDate})`, {
      in: 'body',
      field: 'acquiredAt',
      rule: 'formatMinimum',
      message: 'the store cannot have acquired the animal before it was born',
    });
  }
  if (pet.breed?.secondary !== undefined && pet.breed.mixed !== true) {
    throw invalid('body field "breed.secondary" is allowed only with "breed.mixed": true', {
      in: 'body',
      field: 'breed.secondary',
      rule: 'dependentRequired',
      message: 'a second breed is for a mixed animal: set Mixed, or leave the second breed out',
    });
  }
  if (pet.source !== undefined && pet.source.kind !== 'born-in-store' && pet.source.name === undefined) {
    throw invalid(`body field "source.name" is required when "source.kind" is ${pet.source.kind} (only an animal born in store has no source to name)`, {
      in: 'body',
      field: 'source.name',
      rule: 'required',
      message: 'name the person or business the animal came from',
    });
  }
}

/** The breed filter's terms of a pet (kept with its tags in pet_tags): each word of either breed, prefixed so no tag can be one. */
export function breedTerms(breed: Breed | undefined): string[] {
  if (breed === undefined) return [];
  return [...new Set(words(`${breed.primary} ${breed.secondary ?? ''}`))].map(breedTerm);
}
export const breedTerm = (word: string) => `breed:${word}`;

/** 409 microchip_in_use: the number is another live animal's, named only to a caller who may read pets. */
export function microchipInUse(chip: string, holder: number, reveal: boolean): AppError {
  const whose = reveal ? `animal ${holder} (GET /v1/pets?id=${holder})` : 'another animal';
  return new AppError(
    'microchip_in_use',
    `microchip ${chip} is already recorded for ${whose}; a number belongs to one live animal: correct the number, or withdraw or change that animal first`,
  );
}

/** An animal is sold only with a complete record (RECORD_ENFORCE_ON_SALE); else 409 record_incomplete naming what it lacks. */
export function assertRecordComplete(pet: Pet): void {
  if (!pet.recordComplete) throw recordIncomplete(pet.id, pet.recordMissing);
}

/** 409 record_incomplete: the sale of an animal whose record lacks what the store requires (RECORD_ENFORCE_ON_SALE). */
export function recordIncomplete(petId: number, missing: readonly string[]): AppError {
  return new AppError(
    'record_incomplete',
    `pet ${petId}'s record lacks ${missing.join(', ')}, which the store requires before a sale (RECORD_ENFORCE_ON_SALE): complete it with PATCH /v1/pets/${petId}`,
  );
}
