// A receiver's Retry-After (RFC 9110 §10.2.3) on the answers that carry it for a retry: 429 Too Many
// Requests (RFC 6585 §4) and 503 Service Unavailable. How the dispatcher uses it is nextAttemptAt's
// (webhook.dispatcher.ts); this reads the field.

/** The statuses whose Retry-After the dispatcher honours. */
const ASKS_TO_WAIT: ReadonlySet<number> = new Set([429, 503]);

/**
 * When a failed attempt's receiver asks to be tried again: the time its Retry-After names, counted
 * from `now` for delay-seconds; null when the status is not 429 or 503, or the field is absent or
 * not one valid value (then the retry schedule alone decides).
 */
export function retryAfter(status: number | null, value: string | undefined, now: Date): Date | null {
  if (status === null || !ASKS_TO_WAIT.has(status) || value === undefined) return null;
  const field = value.trim();
  if (/^\d+$/.test(field)) return new Date(now.getTime() + Number(field) * 1000);
  const at = httpDate(field, now);
  return at === undefined ? null : new Date(at);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
// RFC 9110 §5.6.7: IMF-fixdate, which senders use, and the two obsolete forms recipients must still read.
const IMF_FIXDATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME_DATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} ( \\d|\\d{2}) ${TIME} (\\d{4})$`);

/** Milliseconds since the epoch of an HTTP-date, or undefined when `field` is not one (or names no real day). */
function httpDate(field: string, now: Date): number | undefined {
  let m = IMF_FIXDATE.exec(field);
  if (m) return utc(Number(m[3]), m[2], Number(m[1]), m.slice(4));
  m = RFC850_DATE.exec(field);
  if (m) {
    // A two-digit year more than 50 years ahead is the latest past year with those digits.
    const thisYear = now.getUTCFullYear();
    let year = thisYear - (thisYear % 100) + Number(m[3]);
    if (year > thisYear + 50) year -= 100;
    return utc(year, m[2], Number(m[1]), m.slice(4));
  }
  m = ASCTIME_DATE.exec(field);
  if (m) return utc(Number(m[6]), m[1], Number(m[2].trim()), m.slice(3, 6));
  return undefined;
}

function utc(year: number, month: string, day: number, [h, min, s]: string[]): number | undefined {
  const [hours, minutes, seconds] = [Number(h), Number(min), Number(s)];
  if (hours > 23 || minutes > 59 || seconds > 60) return undefined;
  const monthIndex = MONTHS.indexOf(month as (typeof MONTHS)[number]);
  // Date.UTC rolls 31 Feb over into March: such a day is not a date.
  if (new Date(Date.UTC(year, monthIndex, day)).getUTCDate() !== day) return undefined;
  return Date.UTC(year, monthIndex, day, hours, minutes, seconds);
}
