// The pets' CSV columns: what an export writes (GET /pets.csv) and an import reads (docs/api.md,
// "Pets as CSV"), so that export → import is a round trip. They follow from the field table and the
// NewPet schema: `id`, then in PET_FIELDS' order one column per member a client sends, one per
// property of an object member (`breed.primary`, `source.kind`, `price.amount`), and the category
// by its name. A column encodes a pet's value as a cell and decodes a cell's text to the value
// NewPet and PetPatch accept; text it cannot read (`yes` for a boolean) it leaves as it is, for the
// API's schema to refuse with the error a JSON client would get.
import { csvLine, csvText } from '../csv.ts';
import { NewPet, PET_FIELDS, type Pet } from './pet.schemas.ts';

type Cell = string | number | undefined;

/** A category's name by its id; undefined for none. */
export type CategoryName = (id: number) => string | undefined;

export interface PetCsvColumn {
  readonly header: string;
  /** The member of NewPet and PetPatch it fills (`categoryId` for `category`; `id` names the animal to update). */
  readonly member: string;
  /** The property of an object member (breed, source, price) it fills. */
  readonly property?: string;
  encode(pet: Pet, categoryName: CategoryName): Cell;
  /** The value of a cell's text (unquoted by the reader): undefined when empty, the text itself when it is no value of the column's type. */
  decode(text: string): unknown;
}

interface JsonSchema {
  readonly type?: string;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
}

// Tags are written one space apart: a tag holds no space (TAG_PATTERN), and a person types them so.
const TAG_SEPARATOR = ' ';
const INTEGER = /^-?\d{1,16}$/;

/** How a value of a schema's type is written and read back. */
function codec(schema: JsonSchema): { encode(value: unknown): Cell; decode(text: string): unknown } {
  switch (schema.type) {
    case 'boolean':
      return { encode: (v) => (v === undefined ? undefined : String(v)), decode: (t) => (t === 'true' ? true : t === 'false' ? false : t) };
    case 'integer':
      return { encode: (v) => v as number | undefined, decode: (t) => (INTEGER.test(t) ? Number(t) : t) };
    case 'array':
      return {
        encode: (v) => ((v as string[] | undefined)?.length ? (v as string[]).join(TAG_SEPARATOR) : undefined),
        decode: (t) => t.split(/\s+/).filter((tag) => tag !== ''),
      };
    default:
      return { encode: (v) => v as string | undefined, decode: (t) => t };
  }
}

function column(header: string, member: string, encode: PetCsvColumn['encode'], read: (text: string) => unknown, property?: string): PetCsvColumn {
  return {
    header,
    member,
    property,
    encode,
    decode: (cell) => {
      const text = csvText(cell);
      return text === '' ? undefined : read(text);
    },
  };
}

function memberColumns(member: keyof Pet): PetCsvColumn[] {
  if (member === 'categoryId')
    return [
      column(
        'category',
        member,
        (pet, name) => name(pet.categoryId),
        (t) => t,
      ),
    ];
  const schema = (NewPet.properties as Record<string, JsonSchema>)[member];
  if (schema.properties === undefined) {
    const { encode, decode } = codec(schema);
    return [column(member, member, (pet) => encode(pet[member]), decode)];
  }
  return Object.entries(schema.properties).map(([property, inner]) => {
    const { encode, decode } = codec(inner);
    return column(`${member}.${property}`, member, (pet) => encode((pet[member] as Record<string, unknown> | undefined)?.[property]), decode, property);
  });
}

/** The columns, in the order an export writes them. */
export const PET_CSV_COLUMNS: readonly PetCsvColumn[] = [
  column('id', 'id', (pet) => pet.id, codec({ type: 'integer' }).decode),
  ...PET_FIELDS.filter((f) => f.member in NewPet.properties).flatMap((f) => memberColumns(f.member)),
];

export const PET_CSV_HEADERS: readonly string[] = PET_CSV_COLUMNS.map((c) => c.header);

/** The column of a header, if it names one (headers are exact: no other spelling is read). */
export function petCsvColumn(header: string): PetCsvColumn | undefined {
  return PET_CSV_COLUMNS.find((c) => c.header === header);
}

/** The header record of a pets CSV. */
export const petCsvHeader = (): string => csvLine(PET_CSV_HEADERS);

/** One pet as a CSV record. */
export function petCsvRecord(pet: Pet, categoryName: CategoryName): string {
  return csvLine(PET_CSV_COLUMNS.map((c) => c.encode(pet, categoryName)));
}

/**
 * A record read back: `id` and `category` (a name, for the importer to resolve) as their cells
 * gave them, and every other member a header named: its value, an object member built from its
 * properties' cells, undefined when all its cells are empty.
 */
export interface PetCsvRow {
  readonly id?: unknown;
  readonly category?: string;
  readonly members: Readonly<Record<string, unknown>>;
}

/** Decodes a record's cells, by header; headers that name no column are not read (the importer refuses them). */
export function decodePetRow(cells: Readonly<Record<string, string>>): PetCsvRow {
  let id: unknown;
  let category: string | undefined;
  const members: Record<string, unknown> = {};
  for (const [header, cell] of Object.entries(cells)) {
    const c = petCsvColumn(header);
    if (c === undefined) continue;
    const value = c.decode(cell);
    if (c.member === 'id') id = value;
    else if (c.member === 'categoryId') category = value as string | undefined;
    else if (c.property === undefined) members[c.member] = value;
    else {
      const object = (members[c.member] ?? {}) as Record<string, unknown>;
      if (value !== undefined) object[c.property] = value;
      members[c.member] = Object.keys(object).length === 0 ? undefined : object;
    }
  }
  // An object member's properties in the schema's order, whatever order the file's columns come in.
  for (const [member, value] of Object.entries(members)) {
    if (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) continue;
    const order = Object.keys((NewPet.properties as Record<string, JsonSchema>)[member].properties ?? {});
    members[member] = Object.fromEntries(order.filter((p) => p in value).map((p) => [p, (value as Record<string, unknown>)[p]]));
  }
  return { id, category, members };
}

/** A row as the body of POST /pets: the members given, an empty one left out. */
export function newPetOf(row: PetCsvRow, categoryId: number | undefined): Record<string, unknown> {
  const body: Record<string, unknown> = { ...members(row, false) };
  if (categoryId !== undefined) body.categoryId = categoryId;
  return reorder(body);
}

/** A row as a merge patch (PetPatch) of the animal it names: an empty cell of a column the file has removes the member (`null`). */
export function petPatchOf(row: PetCsvRow, categoryId: number | undefined): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...members(row, true) };
  if (categoryId !== undefined) patch.categoryId = categoryId;
  return reorder(patch);
}

function members(row: PetCsvRow, emptyIsNull: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [member, value] of Object.entries(row.members)) {
    if (value !== undefined) out[member] = value;
    else if (emptyIsNull) out[member] = null;
  }
  return out;
}

// NewPet's member order, as a JSON client would send them.
const ORDER = Object.keys(NewPet.properties);
function reorder(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(ORDER.filter((m) => m in body).map((m) => [m, body[m]]));
}
