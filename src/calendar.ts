// Calendar dates (`YYYY-MM-DD`, schemas.ts CalendarDate) against the clock. A date names a day in
// the store's own time zone, which the service does not know: a date is "in the future" only once
// it is after today everywhere on Earth, so a shop east of UTC can always record its own today.
import { invalid } from './errors.ts';

/** The easternmost offset in use (UTC+14, Line Islands): where a new day starts first. */
const EARLIEST_OFFSET_MS = 14 * 60 * 60 * 1000;

/** The latest date that is today somewhere at `now`; a date after it is in the future everywhere. */
export function latestToday(now: Date): string {
  return new Date(now.getTime() + EARLIEST_OFFSET_MS).toISOString().slice(0, 10);
}

/** Refuses (400 validation_failed, naming the body field) a date that is in the future everywhere. */
export function assertNotFuture(field: string, date: string, now: Date): void {
  const today = latestToday(now);
  if (date > today) {
    throw invalid(`body field "${field}" must not be in the future (it is ${today} at the latest today)`, {
      in: 'body',
      field,
      rule: 'formatMaximum',
      message: 'a date that has not come yet: use today or an earlier day',
    });
  }
}
