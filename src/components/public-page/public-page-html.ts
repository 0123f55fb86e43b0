// The public page's HTML: the message, its public ancestors above it for context, Open Graph tags
// and a canonical link. No script at all; the one stylesheet is inline and allowed by its hash in
// the Content-Security-Policy, so nothing else can style or run.
// (The template tag is `markup`, not `html`, so that Prettier leaves the markup as written.)
import { createHash } from 'node:crypto';
import type { MessageOutput } from '../messages/messages.schemas.js';
import { markup, SafeHtml } from './html-template.js';
import type { PublicMessageView } from './show-public-message.js';

const STYLE = `
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d1f23;background:#f6f7f9}
main{max-width:42rem;margin:0 auto;padding:1.5rem 1rem}
.message{background:#fff;border:1px solid #dde1e6;border-radius:8px;padding:1rem 1.25rem;margin:0 0 1rem}
.context{list-style:none;margin:0;padding:0}
.context .message{background:#fbfbfc;color:#464b53;font-size:.95rem}
.context li+li{border-left:3px solid #dde1e6;margin-left:1rem;padding-left:.75rem}
h1{font-size:1.35rem;margin:0 0 .5rem}
h2{font-size:1.05rem;margin:0 0 .25rem}
.byline{margin:0 0 .75rem;color:#5b616b;font-size:.9rem}
.name{font-weight:600;color:#1d1f23}
.content{white-space:pre-wrap;overflow-wrap:anywhere;margin:0}
.tags{list-style:none;padding:0;margin:.75rem 0 0;display:flex;flex-wrap:wrap;gap:.4rem}
.tags li{background:#eef1f5;border-radius:4px;padding:0 .4rem;font-size:.85rem}
.quoted{font-size:.85rem;color:#5b616b;margin:.75rem 0 0}
a{color:#0b5cad}
footer{color:#5b616b;font-size:.8rem;text-align:center}
`.trim();

/** The CSP source allowing exactly the inline stylesheet above. */
export const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

const STYLE_HTML = new SafeHtml(STYLE);

const DESCRIPTION_MAX = 200;
const TITLE_MAX = 90;

/** Whitespace collapsed and cut to `max` characters (code points, so no pair is split) with an ellipsis. */
export function excerpt(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  return chars.length <= max
    ? flat
    : `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}

const HUMAN_TIME = new Intl.DateTimeFormat('en-GB', {
  dateStyle: 'long',
  timeStyle: 'short',
  timeZone: 'UTC',
});

function humanTime(iso: string): string {
  return `${HUMAN_TIME.format(new Date(iso))} UTC`;
}

function authorName(message: MessageOutput, names: Map<string, string | null>): string {
  return names.get(message.author.uid) ?? `@${message.author.user_tag}`;
}

interface ImportInfo {
  source?: string;
  author_name?: string;
  url?: string;
  original_timestamp?: string;
}

function importLine(message: MessageOutput): SafeHtml | null {
  const info = message.import_info as ImportInfo | null;
  if (!info?.source || !info.author_name) return null;
  // The quoted source's address was checked to be http(s) when imported; it is a plain link out.
  const from = info.url
    ? markup`<a href="${info.url}" rel="nofollow noopener noreferrer ugc">${info.source}</a>`
    : info.source;
  const when = info.original_timestamp
    ? markup`, originally <time datetime="${info.original_timestamp}">${humanTime(info.original_timestamp)}</time>`
    : '';
  return markup`<p class="quoted">Quoted from ${from}: ${info.author_name}${when}</p>`;
}

function messageBody(
  message: MessageOutput,
  names: Map<string, string | null>,
  heading: 'h1' | 'h2',
  link: boolean,
): SafeHtml {
  const displayName = names.get(message.author.uid) ?? null;
  const subject = !message.subject
    ? null
    : heading === 'h1'
      ? markup`<h1 class="subject">${message.subject}</h1>\n`
      : markup`<h2 class="subject">${message.subject}</h2>\n`;
  const name = displayName ? markup`<span class="name">${displayName}</span> ` : '';
  const time = markup`<time datetime="${message.timestamp}">${humanTime(message.timestamp)}</time>`;
  const tags =
    message.tags.length > 0
      ? markup`<ul class="tags" aria-label="Tags">${message.tags.map((tag) => markup`<li>#${tag}</li>`)}</ul>\n`
      : '';
  return markup`<article class="message" id="m-${message.id}" data-message-id="${message.id}">
${subject}<p class="byline">${name}<span class="tag">@${message.author.user_tag}</span> · ${link ? markup`<a href="./${message.id}">${time}</a>` : time}</p>
<div class="content" dir="auto">${message.content}</div>
${tags}${importLine(message)}</article>
`;
}

export function renderMessagePage(view: PublicMessageView, publicUrl: string): string {
  const { message, ancestors, displayNames } = view;
  const url = `${publicUrl}/messages/${message.id}`;
  const author = authorName(message, displayNames);
  const title = message.subject ?? excerpt(`${author}: ${message.content}`, TITLE_MAX);
  const description = excerpt(message.content, DESCRIPTION_MAX);
  const context =
    ancestors.length > 0
      ? markup`<nav aria-label="Earlier in this thread">
<ol class="context">
${ancestors.map((above) => markup`<li>${messageBody(above, displayNames, 'h2', true)}</li>\n`)}</ol>
</nav>
`
      : '';
  const tagMeta = message.tags.map((tag) => markup`<meta property="article:tag" content="${tag}">\n`);
  return markup`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Skein</title>
<meta name="description" content="${description}">
<link rel="canonical" href="${url}">
<meta property="og:type" content="article">
<meta property="og:site_name" content="Skein">
<meta property="og:title" content="${title}">
<meta property="og:description" content="${description}">
<meta property="og:url" content="${url}">
<meta property="article:published_time" content="${message.timestamp}">
<meta property="article:author" content="${author} (@${message.author.user_tag})">
${tagMeta}<style>${STYLE_HTML}</style>
</head>
<body>
<main>
${context}${messageBody(message, displayNames, 'h1', false)}</main>
<footer><p>A public message on Skein.</p></footer>
</body>
</html>
`.text;
}

export function renderNotFoundPage(): string {
  return markup`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Not found · Skein</title>
<style>${STYLE_HTML}</style>
</head>
<body>
<main>
<h1>Not found</h1>
<p>There is no public message at this address.</p>
</main>
</body>
</html>
`.text;
}
