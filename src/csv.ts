// CSV as the service writes it (RFC 4180, UTF-8): CRLF line ends, a field quoted when it holds a
// comma, a quote or a line break, its quotes doubled. Every CSV the service sends (the dealer's
// record book, the exports) is written by these functions, and an import reads cells back with
// `csvText`, so the formula defence is one rule in one place (docs/api.md, "CSV").

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
