// Neo4j property values to JSON and back, without losing their type: a backup must give back an
// integer as an integer (event positions, counters), a float as a float and a datetime with its
// nanoseconds and zone, or the restored store would compare and index differently from the one it
// came from. Plain JSON carries strings, booleans, floats and lists of them as they are; every other
// type is a one-key object whose key names it ({"$i": "42"}). Property values are never maps, so such
// an object cannot be mistaken for a value of the store's.
import neo4j from 'neo4j-driver';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const { DateTime, Date: Neo4jDate, LocalDateTime, LocalTime, Time, Duration, Point } = neo4j.types;

/** A number read through a driver with lossless integers (an Integer, or a float), as a JS number. */
export function toNumber(value: unknown): number {
  return neo4j.isInt(value) ? value.toNumber() : Number(value);
}

/** A property value read through a driver with lossless integers, as JSON. */
export function encodeValue(value: unknown): Json {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : { $f: String(value) };
  if (Array.isArray(value)) return value.map(encodeValue);
  if (neo4j.isInt(value)) return { $i: value.toString() };
  if (value instanceof Int8Array)
    return { $b: Buffer.from(value.buffer, value.byteOffset, value.length).toString('base64') };
  if (neo4j.isDateTime(value)) {
    const offset = value.timeZoneOffsetSeconds ?? null;
    return {
      $dt: [
        toNumber(value.year),
        toNumber(value.month),
        toNumber(value.day),
        toNumber(value.hour),
        toNumber(value.minute),
        toNumber(value.second),
        toNumber(value.nanosecond),
        offset === null ? null : toNumber(offset),
        value.timeZoneId ?? null,
      ],
    };
  }
  if (neo4j.isLocalDateTime(value))
    return {
      $ldt: [
        value.year,
        value.month,
        value.day,
        value.hour,
        value.minute,
        value.second,
        value.nanosecond,
      ].map(toNumber),
    };
  if (neo4j.isDate(value)) return { $d: [value.year, value.month, value.day].map(toNumber) };
  if (neo4j.isTime(value))
    return {
      $t: [value.hour, value.minute, value.second, value.nanosecond, value.timeZoneOffsetSeconds].map(
        toNumber,
      ),
    };
  if (neo4j.isLocalTime(value))
    return { $lt: [value.hour, value.minute, value.second, value.nanosecond].map(toNumber) };
  if (neo4j.isDuration(value))
    return { $du: [value.months, value.days, value.seconds, value.nanoseconds].map(toNumber) };
  if (neo4j.isPoint(value))
    return { $p: [toNumber(value.srid), value.x, value.y, ...(value.z === undefined ? [] : [value.z])] };
  throw new Error(`a property value of an unknown type: ${Object.prototype.toString.call(value)}`);
}

/** A property map read through a driver with lossless integers, as JSON. */
export function encodeProperties(properties: Record<string, unknown>): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(properties)) out[key] = encodeValue(value);
  return out;
}

/** The driver value that writes what encodeValue read. */
export function decodeValue(value: Json): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(decodeValue);
  const [tag, body] = Object.entries(value)[0] ?? [];
  const parts = body as (number | string | null)[];
  const n = (i: number) => parts[i] as number;
  switch (tag) {
    case '$i':
      // neo4j.int reads anything else as 0.
      if (typeof body !== 'string' || !/^-?\d+$/.test(body))
        throw new Error(`not an integer: ${JSON.stringify(body).slice(0, 80)}`);
      return neo4j.int(body);
    case '$f':
      return Number(body);
    case '$b':
      return new Int8Array(Buffer.from(body as string, 'base64'));
    case '$dt':
      return new DateTime(
        n(0),
        n(1),
        n(2),
        n(3),
        n(4),
        n(5),
        n(6),
        // A named zone fixes the offset itself: the driver takes one or the other.
        parts[8] === null ? n(7) : undefined,
        parts[8] === null ? undefined : (parts[8] as string),
      );
    case '$ldt':
      return new LocalDateTime(n(0), n(1), n(2), n(3), n(4), n(5), n(6));
    case '$d':
      return new Neo4jDate(n(0), n(1), n(2));
    case '$t':
      return new Time(n(0), n(1), n(2), n(3), n(4));
    case '$lt':
      return new LocalTime(n(0), n(1), n(2), n(3));
    case '$du':
      return new Duration(n(0), n(1), n(2), n(3));
    case '$p':
      return parts.length === 4 ? new Point(n(0), n(1), n(2), n(3)) : new Point(n(0), n(1), n(2));
    default:
      throw new Error(`not a value this backup format knows: ${JSON.stringify(value).slice(0, 80)}`);
  }
}

export function decodeProperties(properties: Record<string, Json>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(properties)) out[key] = decodeValue(value);
  return out;
}

export type { Json };
