// A CSV file's rows as the animals' members: the header names the columns, each row's cells are
// decoded by the pets' CSV columns (pets/pet.csv.ts, the ones an export writes).
import { type ReadRow, UnreadableFile } from './import.read.ts';

/** How a header row is read, and then each row under it. */
export interface CsvColumns {
  /** The columns a header row names; UnreadableFile when it names one that is no column. */
  header(cells: readonly string[]): CsvHeader;
}

export interface CsvHeader {
  /** The row's members (an empty cell: the member absent), or the problem of its first cell that does not decode. */
  row(line: number, cells: readonly string[]): ReadRow;
}

/** Until the pets' CSV columns exist (pets/pet.csv.ts, issue 39 §2), a CSV file cannot be read. */
export const petCsvColumns: CsvColumns = {
  header() {
    throw new UnreadableFile('CSV files are not read yet: send JSON Lines');
  },
};
