// What counts as an email, a phone number and an endpoint URL, and the one form each is stored in
// (emails lower-cased, phones in E.164, URLs as the WHATWG parser writes them), so that a request
// and its verification always name the same contact.
// The core build with the full ("max") metadata passed in: exact validity per numbering plan, and
// no reliance on the package's metadata.*.json.js shims, which some module resolvers (jest's
// `.js`-stripping mapper among them) turn back into the raw JSON.
import { parsePhoneNumberFromString } from 'libphonenumber-js/core';
import metadata from 'libphonenumber-js/metadata.max.json';
import { z } from 'zod';
import { AppError } from '../../platform/errors.js';
import { parseEndpointUrl } from '../../platform/http/outbound-http.js';

const Email = z.email().max(254);

export function normalizeEmail(value: string): string {
  const email = value.trim().toLowerCase();
  if (!Email.safeParse(email).success)
    throw new AppError('invalid_email', 'That is not a valid email address.');
  return email;
}

export function normalizePhone(value: string): string {
  const compact = value.trim().replace(/[\s().-]/g, '');
  const invalid = () =>
    new AppError('invalid_phone', 'Give the phone number in E.164 form, such as +14155552671.');
  if (!/^\+[1-9]\d{1,14}$/.test(compact)) throw invalid();
  const parsed = parsePhoneNumberFromString(compact, metadata);
  if (!parsed?.isValid()) throw invalid();
  return parsed.number;
}

export function normalizeEndpoint(value: string): string {
  const url = parseEndpointUrl(value.trim());
  if (!url) {
    throw new AppError(
      'invalid_endpoint',
      'The endpoint must be an http(s) URL with a host and no user:password.',
    );
  }
  url.hash = '';
  return url.href;
}
