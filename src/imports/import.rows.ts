// What one row of an import asks for, checked by the rules the API applies to the same values:
// the NewPet or PetPatch schema, then the pet service's own rules (newPetRecord, patchPet,
// checkRecord, microchip uniqueness). Pure, given what the database said of the row's animal.
import { AppError, ERROR_STATUS, type ErrorCode } from '../errors.ts';
import { microchipInUse, normaliseMicrochip, type RecordRule, checkRecord } from '../pets/pet.record.ts';
import { NewPet, Pet, PetPatch } from '../pets/pet.schemas.ts';
import { newPetRecord, patchPet } from '../pets/pet.service.ts';
import type { ImportRefusal } from './import.schemas.ts';
import type { ImportRow, RowError } from './import.store.ts';

/** The validation_failed error a request with this body would get, or undefined (http/policies/validation.ts' bodyValidator). */
export type BodyCheck = (value: unknown) => AppError | undefined;

export interface RowRules {
  readonly now: Date;
  readonly currency: string;
  readonly record: RecordRule;
  readonly newPet: BodyCheck;
  readonly petPatch: BodyCheck;
  /** Live categories, by name in lower case. */
  readonly categories: ReadonlyMap<string, number>;
  readonly createCategories: boolean;
  /** The caller may read pets: a refusal may name another animal. */
  readonly reveal: boolean;
}

/** What the database and the rows before it say of one row: its animal (by `id` or microchip), and who holds its microchip number. */
export interface RowFacts {
  /** The live animal the row's `id` names (undefined: none). */
  readonly byId?: Pet;
  /** The live animal holding the row's microchip number. */
  readonly chipHolder?: Pet;
  /** The line of an earlier row of the file that changes the same animal, or gives the same microchip number. */
  readonly sameTargetAt?: number;
  readonly sameChipAt?: number;
}

/**
 * Members a row may carry that no client sets: what an export writes beside the animal's own
 * fields (its read-only members and `etag`). They are read and ignored, so that an export can be
 * imported as it is.
 */
export const IGNORED_MEMBERS: ReadonlySet<string> = new Set([
  ...Object.keys(Pet.properties).filter((m) => m !== 'id' && !(m in NewPet.properties) && !(m in PetPatch.properties)),
  'etag',
]);

/** A row as read: what names its animal, its category by name, and its members as POST /pets and PATCH /pets/{petId} take them. */
export interface RowInput {
  /** Its `id`, as given. */
  readonly id?: unknown;
  /** Its category by name, as given. */
  readonly category?: unknown;
  /** Its members as a new animal's (`categoryId` when given by id). */
  asNew(): Record<string, unknown>;
  /** Its members as a merge patch of the animal it names. */
  asPatch(): Record<string, unknown>;
  /** The column (CSV) or member (JSON Lines) a field of the body (`price.amount`, `tags[0]`) came from. */
  column(field: string): string;
}

/** The member a field of the body belongs to: `price` for `price.amount`, `tags` for `tags[0]`. */
export const memberOf = (field: string): string => /^[^.[]*/.exec(field)?.[0] ?? '';

/** A JSON Lines row: the object's members, the same for a new animal and a patch (`null` removes, as in PATCH). */
export function jsonInput(object: Record<string, unknown>): RowInput {
  const { id, category, ...rest } = object;
  const members: Record<string, unknown> = {};
  for (const [member, value] of Object.entries(rest)) if (!IGNORED_MEMBERS.has(member)) members[member] = value;
  const column = (field: string) => (memberOf(field) === 'categoryId' && category !== undefined ? 'category' : memberOf(field));
  return { id, category, asNew: () => members, asPatch: () => members, column };
}

/** The row's `id` when it is a valid one, and its microchip number normalised when it is a valid one: what finds its animal. */
export function rowKeys(input: RowInput): { id?: number; chip?: string } {
  const { id } = input;
  const chip = input.asNew().microchip;
  let normalised: string | undefined;
  if (typeof chip === 'string') {
    try {
      normalised = normaliseMicrochip(chip, { in: 'body', field: 'microchip' });
    } catch {
      // Refused by planRow, with the API's message.
    }
  }
  return { ...(Number.isSafeInteger(id) && (id as number) > 0 ? { id: id as number } : {}), ...(normalised ? { chip: normalised } : {}) };
}

/**
 * The row as it will be applied — an update of the animal its `id` or microchip number names, or a
 * new animal — or refused (outcome `invalid`) with the error the API gives for the same values.
 */
export function planRow(line: number, input: RowInput, facts: RowFacts, rules: RowRules): ImportRow {
  try {
    return { line, outcome: 'pending', ...plan(input, facts, rules) };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { line, outcome: 'invalid', error: rowError(err, input) };
  }
}

function plan(input: RowInput, facts: RowFacts, rules: RowRules): Pick<ImportRow, 'petId' | 'category' | 'data'> {
  const { id: rawId, category } = input;
  const { id } = rowKeys(input);
  const members = { ...(id !== undefined || facts.chipHolder !== undefined ? input.asPatch() : input.asNew()) };
  if (rawId !== undefined && id === undefined) {
    throw new AppError('validation_failed', `body field "id" must be an animal's id: an integer from 1`, {}, [
      { in: 'body', field: 'id', rule: 'type', message: "an animal's id, a whole number from 1" },
    ]);
  }
  // The category by name (CSV, and JSON Lines' `category`), or by id (JSON Lines' `categoryId`).
  let categoryName: string | undefined;
  if (category !== undefined) {
    if (members.categoryId !== undefined) throw invalidRow('category', 'name the category by `category` or `categoryId`, not both');
    if (typeof category !== 'string' || category.trim() === '') throw invalidRow('category', 'a category is named by its name, a string');
    const known = rules.categories.get(category.toLowerCase());
    if (known !== undefined) members.categoryId = known;
    else if (rules.createCategories) categoryName = category;
    else throw unknownCategoryNamed(category);
  }
  // A category created when applying: the schemas check every other member with a placeholder id.
  const withCategory = (data: Record<string, unknown>) => (categoryName === undefined ? data : { ...data, categoryId: 1 });
  if (id !== undefined) {
    if (facts.sameTargetAt !== undefined) throw sameAnimal('id', id, facts.sameTargetAt);
    if (facts.byId === undefined) throw new AppError('not_found', `pet ${id} does not exist`);
    return { petId: id, ...update(facts.byId, members, withCategory, categoryName, facts, rules) };
  }
  if (facts.chipHolder !== undefined) {
    if (facts.sameTargetAt !== undefined) throw sameAnimal('microchip', facts.chipHolder.id, facts.sameTargetAt);
    return { petId: facts.chipHolder.id, ...update(facts.chipHolder, members, withCategory, categoryName, facts, rules) };
  }
  const error = rules.newPet(withCategory(members));
  if (error) throw error;
  const record = newPetRecord(withCategory(members) as NewPet, rules.currency, rules.record);
  checkRecord(record, rules.now);
  if (record.microchip !== undefined && facts.sameChipAt !== undefined) throw chipInFile(record.microchip, facts.sameChipAt);
  return { ...(categoryName === undefined ? {} : { category: categoryName }), data: members };
}

function update(
  current: Pet,
  members: Record<string, unknown>,
  withCategory: (data: Record<string, unknown>) => Record<string, unknown>,
  categoryName: string | undefined,
  facts: RowFacts,
  rules: RowRules,
): Pick<ImportRow, 'category' | 'data'> {
  const error = rules.petPatch(withCategory(members));
  if (error) throw error;
  const { next, changed } = patchPet(current, members as PetPatch, rules.currency, rules.record);
  if (changed) checkRecord(next, rules.now);
  if (next.microchip !== undefined && next.microchip !== current.microchip) {
    if (facts.chipHolder !== undefined && facts.chipHolder.id !== current.id) throw microchipInUse(next.microchip, facts.chipHolder.id, rules.reveal);
    if (facts.sameChipAt !== undefined) throw chipInFile(next.microchip, facts.sameChipAt);
  }
  return { ...(categoryName === undefined ? {} : { category: categoryName }), data: members };
}

/** A row's error: the column of the field it names (RowInput.column; empty for the whole row) and the API's code and message. */
export function rowError(err: AppError, input: RowInput | undefined): RowError {
  const field = err.errors?.[0]?.field ?? fieldOf(err.code);
  return { field: field === '' ? '' : (input?.column(field) ?? memberOf(field)), code: err.code, message: err.message };
}

const fieldOf = (code: ErrorCode): string =>
  code === 'microchip_in_use' ? 'microchip' : code === 'not_found' ? 'id' : code === 'unknown_category' ? 'category' : '';

/** A refused row as the job reports it. */
export const toRefusal = (row: ImportRow): ImportRefusal => ({
  line: row.line,
  column: row.error?.field ?? '',
  code: (row.error?.code ?? 'validation_failed') as ErrorCode,
  message: row.error?.message ?? '',
  status: ERROR_STATUS[(row.error?.code ?? 'validation_failed') as ErrorCode],
});

function invalidRow(field: string, rule: string): AppError {
  return new AppError('validation_failed', `body field "${field}": ${rule}`, {}, [{ in: 'body', field, rule: 'import', message: rule }]);
}

function unknownCategoryNamed(name: string): AppError {
  return new AppError(
    'unknown_category',
    `no live category is named ${JSON.stringify(name)} (see GET /v1/categories; createCategories=true creates it when applying)`,
  );
}

function chipInFile(chip: string, line: number): AppError {
  return new AppError('microchip_in_use', `microchip ${chip} is also on line ${line} of the file; a number belongs to one live animal`);
}

/** A file changes an animal once: the rows are applied together, in no order between them. */
function sameAnimal(field: 'id' | 'microchip', id: number, line: number): AppError {
  return invalidRow(field, `animal ${id} is also changed on line ${line}; a file changes an animal once`);
}
