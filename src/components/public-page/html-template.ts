// A minimal HTML template tag: every interpolated value is escaped unless it is already SafeHtml
// (the result of another markup`` call), so escaping cannot be forgotten at a call site. Attribute
// values in the templates are always double-quoted, which escape-html covers (& < > " ').
import escapeHtml from 'escape-html';

export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type HtmlValue = string | number | SafeHtml | null | undefined | false | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function markup(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  return new SafeHtml(
    strings.reduce((out, literal, i) => out + literal + (i < values.length ? render(values[i]) : ''), ''),
  );
}
