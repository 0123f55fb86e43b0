// Integer query parameters (skip, limit, depths, days...). A query value is text, and
// z.coerce.number() read "0x10", "1e1", " 5 ", "5.0", "+5" and even "" as numbers, so a malformed
// value was answered as if it were a count. Here only decimal digits (with an optional minus, so
// that -1 is answered "too small") are read; anything else is 422. GraphQL arguments share these
// schemas and arrive as numbers already (GraphQL's Int checked them), so numbers pass as they are.
import { z } from './openapi.js';

const DECIMAL_INTEGER = /^-?\d+$/;

/** An integer from min to max, written in decimal digits; chain .default() or .optional(). */
export function queryInteger(bounds: { min: number; max: number }) {
  return z.preprocess(
    (value) => (typeof value === 'string' && DECIMAL_INTEGER.test(value) ? Number(value) : value),
    z.number({ error: 'must be an integer written in decimal digits' }).int().min(bounds.min).max(bounds.max),
  );
}
