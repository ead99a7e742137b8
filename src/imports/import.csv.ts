// A CSV file's rows as the animals' members: the header names the columns, each record's cells are
// decoded by the pets' CSV columns (pets/pet.csv.ts), the ones an export writes, so that an export
// imports as it is.
import { AppError } from '../errors.ts';
import { decodePetRow, newPetOf, PET_CSV_HEADERS, petCsvColumn, petPatchOf } from '../pets/pet.csv.ts';
import { type ReadRow, UnreadableFile } from './import.read.ts';
import { memberOf } from './import.rows.ts';

/** How a header row is read, and then each record under it. */
export interface CsvColumns {
  /** The columns a header row names; UnreadableFile when it names one that is no column, or one twice. */
  header(cells: readonly string[]): CsvHeader;
}

export interface CsvHeader {
  /** The record's row: its cells decoded by their columns; a record with another number of fields than the header is refused. */
  row(line: number, cells: readonly string[]): ReadRow;
}

/** The CSV column a field of the body came from: `price.amount`, `tags` for `tags[0]`, `category` for `categoryId`. */
function column(field: string): string {
  if (memberOf(field) === 'categoryId') return 'category';
  return PET_CSV_HEADERS.find((h) => field === h || field.startsWith(`${h}.`) || field.startsWith(`${h}[`)) ?? memberOf(field);
}

export const petCsvColumns: CsvColumns = {
  header(headers) {
    const unknown = headers.filter((h) => petCsvColumn(h) === undefined);
    if (unknown.length > 0) {
      throw new UnreadableFile(
        `line 1: the header names ${unknown.map((h) => JSON.stringify(h.slice(0, 64))).join(', ')}, not a column of an animal (the columns: ${PET_CSV_HEADERS.join(', ')})`,
      );
    }
    const twice = headers.find((h, i) => headers.indexOf(h) !== i);
    if (twice !== undefined) throw new UnreadableFile(`line 1: the header names ${JSON.stringify(twice)} twice`);
    return {
      row(line, cells) {
        if (cells.length !== headers.length) {
          const message = `the record has ${cells.length} fields; the header names ${headers.length} columns (RFC 4180: every record has as many)`;
          return { line, problem: new AppError('validation_failed', message, {}, [{ in: 'body', field: '', rule: 'columns', message }]) };
        }
        const row = decodePetRow(Object.fromEntries(headers.map((h, i) => [h, cells[i]])));
        // An empty cell leaves a new animal's member out, and removes an existing one's (petPatchOf).
        return {
          line,
          input: { id: row.id, category: row.category, asNew: () => newPetOf(row, undefined), asPatch: () => petPatchOf(row, undefined), column },
        };
      },
    };
  },
};
