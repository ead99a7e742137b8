// CSV as the service writes it (RFC 4180, UTF-8): CRLF line ends, a field quoted when it holds a
// comma, a quote or a line break, its quotes doubled. Every CSV the service sends (the dealer's
// record book, the exports) is written by these functions, and an import reads cells back with
// `csvText`, so the formula defence is one rule in one place (docs/api.md, "CSV").
import { Readable } from 'node:stream';

/** The Content-Type of every CSV answer: UTF-8, and a header row first (RFC 4180 §3's `header` parameter). */
export const CSV_TYPE = 'text/csv; charset=utf-8; header=present';

// A cell a spreadsheet would read as a formula (CWE-1236, OWASP "CSV Injection") starts with one
// of these; it is written behind a quote mark, which spreadsheets show as text. A cell that already
// starts with quote marks before one of them gets one more, so that `csvText` can undo exactly one.
const FORMULA = /^'*[=+\-@\t\r]/;
const DEFUSED = /^'+[=+\-@\t\r]/;

/** One CSV field: quoted when it must be (RFC 4180 §2.6–2.7), a formula-like start defused. A number is written as it is. */
export function csvField(value: string | number | undefined): string {
  if (value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && FORMULA.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV record and its CRLF. */
export function csvLine(fields: readonly (string | number | undefined)[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

/** The text a cell written by `csvField` held (its quoting already undone by the reader): the formula defence removed. */
export function csvText(cell: string): string {
  return DEFUSED.test(cell) ? cell.slice(1) : cell;
}

type Cell = string | number | undefined;

/** An object schema as far as CSV flattens it: its members, an object member by its properties. */
interface CsvSchema {
  readonly $id?: string;
  readonly $ref?: string;
  readonly properties?: Readonly<Record<string, CsvSchema>>;
}

/**
 * The columns of a resource's schema: each member, a member that is an object (inline or a `$ref`
 * to one of `refs`) by its properties as `member.property` (`price.amount`). How an export names
 * its columns from the schema its JSON listing has, so the two cannot drift.
 */
export function csvHeaders(schema: { readonly properties: object }, refs: readonly { readonly $id?: string; readonly properties: object }[] = []): string[] {
  const resolve = (s: CsvSchema) => (s.$ref === undefined ? s : ((refs as readonly CsvSchema[]).find((r) => `${r.$id}#` === s.$ref) ?? s));
  return Object.entries(schema.properties as Record<string, CsvSchema>).flatMap(([member, inner]) => {
    const properties = resolve(inner).properties;
    return properties === undefined ? [member] : Object.keys(properties).map((p) => `${member}.${p}`);
  });
}

/** A value as a cell: a list one item per space (tags hold none), a boolean as `true`/`false`. */
function cell(value: unknown): Cell {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' || typeof value === 'string') return value;
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.join(' ');
  if (typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The record of `item` under `headers` (csvHeaders): each header's member, or property of a member. */
export function csvRecord(item: object, headers: readonly string[]): string {
  const o = item as Record<string, unknown>;
  return csvLine(
    headers.map((h) => {
      const dot = h.indexOf('.');
      return cell(dot < 0 ? o[h] : (o[h.slice(0, dot)] as Record<string, unknown> | undefined)?.[h.slice(dot + 1)]);
    }),
  );
}

/** A CSV download: the name it is saved under and its text, chunk by chunk. */
export interface CsvExport {
  readonly filename: string;
  readonly chunks: AsyncIterable<string>;
}

/** How many rows an export reads a page (the memory it takes, whatever its length). */
export const EXPORT_PAGE_SIZE = 500;

/** A CSV text, chunk by chunk: the header record, then the records of each page as it comes. */
export async function* csvChunks<T>(header: string, pages: AsyncIterable<readonly T[]>, record: (item: T) => string): AsyncGenerator<string> {
  yield header;
  for await (const page of pages) if (page.length > 0) yield page.map(record).join('');
}

/** The name a download of `what` made at `now` is saved under: `pets-2026-11-28.csv` (the UTC day). */
export function csvFilename(what: string, now: Date): string {
  return `${what}-${now.toISOString().slice(0, 10)}.csv`;
}

/**
 * Sends `chunks` as a CSV download saved as `filename`. The stream pulls a chunk only when the
 * socket has taken the last (backpressure), so a long export holds one page at a time.
 */
export function sendCsv(
  reply: { type(t: string): unknown; header(name: string, value: string): unknown; send(body: unknown): unknown },
  filename: string,
  chunks: AsyncIterable<string>,
): unknown {
  reply.type(CSV_TYPE);
  reply.header('content-disposition', `attachment; filename="${filename}"`);
  return reply.send(Readable.from(chunks));
}

/** The documented 200 of a CSV download (the route's own response schema: it serializes nothing, the stream is sent as it is). */
export function csvResponse(description: string, example: string) {
  return {
    description,
    content: { 'text/csv': { schema: { type: 'string', contentMediaType: 'text/csv' } } },
    headers: {
      'Content-Disposition': {
        type: 'string',
        description: 'Always present: a download, and the name to save it under, naming what it holds and the day (UTC) it was made',
        examples: [`attachment; filename="${example}"`],
      },
    },
  };
}
