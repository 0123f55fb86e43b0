// Shapes of the admin metrics (they validate REST queries and GraphQL arguments alike, and feed
// the OpenAPI document).
import { DateTime } from 'luxon';
import { z } from '../../platform/openapi.js';
import { queryInteger } from '../../platform/query-integer.js';
import { Author } from '../messages/messages.schemas.js';

export const METRICS_MAX_LIMIT = 10_000;

/** A real calendar day written YYYY-MM-DD (2026-02-30 is refused). */
const CalendarDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date written YYYY-MM-DD')
  .refine((value) => DateTime.fromISO(value, { zone: 'utc' }).isValid, 'must be a real calendar date')
  // The refine is invisible to the document; `date` (RFC 3339 full-date) states it.
  .openapi({ format: 'date' });

export const MessagesPerDayQuery = z
  .object({
    from_date: CalendarDay.optional().openapi({
      description: 'First UTC day counted (inclusive). Must not be after `to_date` (422 otherwise).',
    }),
    to_date: CalendarDay.optional().openapi({
      description: 'Last UTC day counted (inclusive). Must not be before `from_date` (422 otherwise).',
    }),
    limit: queryInteger({ min: 1, max: METRICS_MAX_LIMIT })
      .default(1000)
      .openapi({ description: `Rows answered, 1–${METRICS_MAX_LIMIT}.` }),
  })
  // Same-length ISO dates order as strings do.
  .refine((q) => q.from_date === undefined || q.to_date === undefined || q.from_date <= q.to_date, {
    message: 'from_date must not be after to_date',
    path: ['from_date'],
  });
export type MessagesPerDayQuery = z.infer<typeof MessagesPerDayQuery>;

export const DayCount = z
  .object({
    date: z.string().openapi({ description: 'UTC calendar day, YYYY-MM-DD.' }),
    author: Author,
    count: z.number().int(),
  })
  .openapi('DayCount');
export type DayCount = z.infer<typeof DayCount>;

export const DayCounts = z.array(DayCount);
