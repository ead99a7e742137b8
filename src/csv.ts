// CSV as exports write it (the dealer's book, the activity log): RFC 4180 — CRLF line ends, a field
// quoted when it holds a comma, a quote or a line break, its quotes doubled.

// A field a spreadsheet would read as a formula (CWE-1236) starts with a quote mark, shown as text.
const FORMULA = /^[=+\-@\t\r]/;

/** One CSV field: quoted when it must be (RFC 4180 §2.6–2.7), a formula-like start defused. */
export function csvField(value: string | number | undefined): string {
  if (value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && FORMULA.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV record, its line end included. */
export const csvLine = (fields: readonly (string | number | undefined)[]): string => `${fields.map(csvField).join(',')}\r\n`;
