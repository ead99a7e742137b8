// Prices are integers in the currency's minor unit (1999 EUR cents is 19.99). The console shows them
// in the browser's locale and reads what staff type ("19.99", "19,99") back into minor units.

/** Digits after the decimal point for a currency (EUR 2, JPY 0); 2 when the browser does not know it. */
export function minorDigits(currency: string | undefined): number {
  if (!currency) return 2;
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

export function formatMoney(amount: number, currency: string): string {
  const digits = minorDigits(currency);
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(amount / 10 ** digits);
  } catch {
    return `${(amount / 10 ** digits).toFixed(digits)} ${currency}`;
  }
}

/** Minor units of an amount as typed (as a string for the form), or undefined when it is not a plain amount. */
export function parseAmount(text: string, currency: string | undefined): number | undefined {
  const digits = minorDigits(currency);
  const m = /^(\d{1,13})(?:[.,](\d*))?$/.exec(text.trim());
  if (!m || (m[2] ?? '').length > digits) return undefined;
  return Number(m[1]) * 10 ** digits + Number((m[2] ?? '').padEnd(digits, '0') || '0');
}

/** The form's text for an amount in minor units. */
export function amountText(amount: number, currency: string): string {
  const digits = minorDigits(currency);
  return digits === 0 ? String(amount) : (amount / 10 ** digits).toFixed(digits);
}
