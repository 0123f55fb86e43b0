// Turns zod failures into the contract's 422 body, or into a 400 where the spec calls a missing
// field "missing input" rather than a validation error.
import type { ZodType, core } from 'zod';
import { AppError, validationError, type ValidationIssue } from './errors.js';

export type InputLocation = 'body' | 'query' | 'path' | 'header' | 'args';

export interface ParseOptions {
  /** Answer 400 `missing_field` (instead of 422) when a required field is absent. */
  missingIsBadRequest?: boolean;
  /** Answer 400 `bad_request` for any invalid input, where the spec calls it "bad format". */
  invalidIsBadRequest?: boolean;
}

export function parseInput<T>(
  schema: ZodType<T>,
  value: unknown,
  where: InputLocation,
  options: ParseOptions = {},
): T {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  const issues = result.error.issues;
  if (options.missingIsBadRequest) {
    const missing = issues.find((issue) => isMissing(issue));
    if (missing) throw new AppError('missing_field', `The field ${missing.path.join('.')} is required.`);
  }
  const described = issues.map((issue) => toValidationIssue(issue, where));
  if (options.invalidIsBadRequest) {
    const detail = described.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; ');
    throw new AppError('bad_request', `The request is not valid: ${detail}`);
  }
  throw validationError(described);
}

function isMissing(issue: core.$ZodIssue): boolean {
  return issue.code === 'invalid_type' && 'input' in issue && issue.input === undefined;
}

function toValidationIssue(issue: core.$ZodIssue, where: InputLocation): ValidationIssue {
  return {
    loc: [where, ...issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part))],
    msg: issue.message,
    type: issue.code,
  };
}
