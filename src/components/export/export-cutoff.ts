// Where a timeline export starts. Pure functions of `now`, so the daylight-saving cases can be
// tested with fixed instants; the time zone arithmetic is luxon's (IANA data from the runtime's
// Intl), never hand-written offsets.
import { DateTime } from 'luxon';

/** The zone whose business day the default export follows. */
export const EXPORT_ZONE = 'America/New_York';
/** The wall-clock hour (in EXPORT_ZONE) of yesterday at which the default export starts. */
export const EXPORT_DEFAULT_HOUR = 16;

const DAY_MS = 24 * 3600 * 1000;

/**
 * Without `days`: yesterday (the calendar day before today in New York) at 16:00 New York time,
 * whatever the UTC offset of that day is (EST −05:00 or EDT −04:00). With `days`: exactly
 * `days` × 24 hours before `now`. Answers a UTC instant.
 */
export function exportCutoff(now: Date, days: number | null): Date {
  if (days !== null) return new Date(now.getTime() - days * DAY_MS);
  const yesterday = DateTime.fromJSDate(now, { zone: EXPORT_ZONE })
    .minus({ days: 1 })
    .set({ hour: EXPORT_DEFAULT_HOUR, minute: 0, second: 0, millisecond: 0 });
  return yesterday.toJSDate();
}
