import { describe, expect, it } from '@jest/globals';
import { normalizeContentType, sanitizeFilename } from '../../src/components/files/file-names.js';

describe('sanitizeFilename', () => {
  it.each([
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\x\\report.pdf', 'report.pdf'],
    ['a"b\r\n.txt', 'a"b.txt'],
    ['evil\u202Etxt.exe', 'eviltxt.exe'],
    ['  spaced.txt  ', 'spaced.txt'],
    ['..', 'file'],
    ['dir/', 'file'],
    ['\u0000\u0001', 'file'],
    [undefined, 'file'],
  ])('when the name is %j, then %j is kept', (raw, expected) => {
    expect(sanitizeFilename(raw)).toBe(expected);
  });

  it('when the name is longer than 255 characters, then it is cut at 255 code points', () => {
    const name = '😀'.repeat(300);
    const kept = sanitizeFilename(name);
    expect(Array.from(kept)).toHaveLength(255);
    expect(kept).toBe('😀'.repeat(255));
  });
});

describe('normalizeContentType', () => {
  it.each([
    ['image/png', 'image/png'],
    ['Text/HTML; charset=utf-8', 'text/html'],
    ['application/vnd.api+json', 'application/vnd.api+json'],
    ['not a type', 'application/octet-stream'],
    ['text/', 'application/octet-stream'],
    ['', 'application/octet-stream'],
    [undefined, 'application/octet-stream'],
  ])('when the type is %j, then %j is stored', (raw, expected) => {
    expect(normalizeContentType(raw)).toBe(expected);
  });
});
