// Reading an uploaded file as it streams in: bytes → UTF-8 text → rows, each with the line it
// starts on. Nothing holds more than the row being read. CSV is RFC 4180 (a small parser of our
// own: it must know the line each row starts on, which csv-parse reports only for the line it ends
// on); JSON Lines is one JSON object per line, under the API's JSON rules.
import { AppError } from '../errors.ts';
import { jsonStructureProblem, MAX_JSON_DEPTH } from '../http/edge/json-body.ts';
import { jsonInput, type RowInput } from './import.rows.ts';
import type { ImportFormat } from './import.schemas.ts';

/** A row as read: the line it starts on and its cells (a CSV record) or what it asks for, or why that line is no row. */
export type ReadRow =
  | { readonly line: number; readonly cells: readonly string[] }
  | { readonly line: number; readonly input: RowInput }
  | { readonly line: number; readonly problem: AppError };

/** The file cannot be read on (not UTF-8, a CSV quote never closed): the import fails. */
export class UnreadableFile extends Error {}

/** The text of a byte stream, decoded as UTF-8 as it arrives; a byte sequence that is not UTF-8 ends it with UnreadableFile. */
export async function* utf8(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  try {
    for await (const chunk of bytes) yield decoder.decode(chunk, { stream: true });
    yield decoder.decode();
  } catch (err) {
    if (err instanceof TypeError) throw new UnreadableFile('the file is not UTF-8 text');
    throw err;
  }
}

export function readRows(format: ImportFormat, text: AsyncIterable<string>): AsyncGenerator<ReadRow> {
  return format === 'csv' ? csvRows(text) : jsonLines(text);
}

/**
 * RFC 4180 records: fields separated by commas, records by CRLF or LF; a field in double quotes may
 * hold commas, line breaks and `""` (one quote). An empty line is no record. A quote inside an
 * unquoted field, or text after a closing quote, is refused (the rest of the line cannot be read as
 * meant), as is a quoted field still open at the end of the file.
 */
export async function* csvRows(text: AsyncIterable<string>): AsyncGenerator<ReadRow> {
  let cells: string[] = [];
  let cell = '';
  let quoted = false; // inside a quoted field
  let closed = false; // after a quoted field's closing quote (or, if a quote follows at once, a `""`)
  let justClosed = false; // the character before was that closing quote
  let afterCr = false; // the character before was a CR (a CRLF is one line break)
  let line = 1; // the line being read
  let start = 1; // the line the record being read starts on
  let any = false; // the record has a character (an empty line is no record)
  for await (const chunk of text) {
    let from = 0; // the start of the cell's text not yet added to `cell`
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      const crlf = afterCr && c === 10;
      afterCr = c === 13;
      if (quoted) {
        if (c === 34 /* " */) {
          cell += chunk.slice(from, i);
          from = i + 1;
          quoted = false;
          closed = true;
          justClosed = true;
        } else if ((c === 10 && !crlf) || c === 13) line++;
        continue;
      }
      const wasJustClosed = justClosed;
      justClosed = false;
      if (c === 34 && wasJustClosed) {
        // `""` inside a quoted field: one quote, and the field goes on.
        cell += '"';
        from = i + 1;
        quoted = true;
        closed = false;
      } else if (c === 44 /* , */) {
        cells.push(cell + chunk.slice(from, i));
        cell = '';
        closed = false;
        any = true;
        from = i + 1;
      } else if (c === 10 || c === 13) {
        if (crlf) {
          from = i + 1;
          continue;
        }
        const last = cell + chunk.slice(from, i);
        if (any || last !== '' || closed) {
          cells.push(last);
          yield { line: start, cells };
        }
        cells = [];
        cell = '';
        closed = false;
        any = false;
        line++;
        start = line;
        from = i + 1;
      } else if (c === 34 && !closed && cell === '' && i === from) {
        quoted = true;
        any = true;
        from = i + 1;
      } else {
        if (closed) throw new UnreadableFile(`line ${line}: text after a quoted field's closing quote (RFC 4180: a field is quoted whole)`);
        if (c === 34) throw new UnreadableFile(`line ${line}: a double quote inside an unquoted field (RFC 4180: quote the field and write the quote twice)`);
        any = true;
      }
    }
    cell += chunk.slice(from);
  }
  if (quoted) throw new UnreadableFile(`line ${start}: a quoted field is still open at the end of the file`);
  if (any || cell !== '' || closed) {
    cells.push(cell);
    yield { line: start, cells };
  }
}

/** JSON Lines: one JSON object per line (LF or CRLF); an empty line is no row. */
export async function* jsonLines(text: AsyncIterable<string>): AsyncGenerator<ReadRow> {
  let rest = '';
  let line = 0;
  for await (const chunk of text) {
    rest += chunk;
    let end = rest.indexOf('\n');
    while (end >= 0) {
      line++;
      const row = jsonRow(line, rest.slice(0, end));
      if (row) yield row;
      rest = rest.slice(end + 1);
      end = rest.indexOf('\n');
    }
  }
  const last = jsonRow(line + 1, rest);
  if (last) yield last;
}

function jsonRow(line: number, text: string): ReadRow | undefined {
  const json = text.endsWith('\r') ? text.slice(0, -1) : text;
  if (json.trim() === '') return undefined;
  const problem = jsonStructureProblem(json, MAX_JSON_DEPTH);
  if (problem) return { line, problem };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    return { line, problem: new AppError('invalid_json', `request body is not valid JSON: ${(err as Error).message}`) };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { line, problem: new AppError('invalid_json', 'the line is not a JSON object (JSON Lines: one animal per line, as an object)') };
  }
  return { line, input: jsonInput(value as Record<string, unknown>) };
}
