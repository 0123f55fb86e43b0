// The public web page of a message, outside the /v1 API (HTML, not in the OpenAPI document):
//   GET /messages/:id   a public message as an HTML page: escaped content, author (display name and
//                       tag), time (ISO in <time datetime> and human, UTC), subject, tags, its public
//                       ancestors above it for context (root-most first, cut at the first ancestor
//                       that is not public, about which nothing is shown), Open Graph tags and a
//                       canonical link to {PUBLIC_URL}/messages/:id.
//                       Anything else (malformed id, missing, not public) answers the same 404 page,
//                       byte for byte and header for header.
// The service answers at its root; when PUBLIC_URL has a path (https://host/skein), the reverse
// proxy strips it before forwarding. Links between pages are relative so they work either way.
// Caching: `public, no-cache` — a cache may keep the page but must revalidate it (ETag → 304) on
// every use, so a message made private again is a 404 on the next request, not minutes later.
import type { Express, Response } from 'express';
import type { AppContext } from '../../platform/context.js';
import { STYLE_HASH, renderMessagePage, renderNotFoundPage } from './public-page-html.js';
import { showPublicMessage } from './show-public-message.js';

const NOT_FOUND_PAGE = renderNotFoundPage();

// No script may run and nothing may load: the only allowed resource is the inline stylesheet, by hash.
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src ${STYLE_HASH}`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function setPageHeaders(res: Response): void {
  res.set({
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
  });
}

export function mountPublicPage(app: Express, ctx: AppContext): void {
  app.get('/messages/:id', async (req, res) => {
    const view = await showPublicMessage(ctx, req.params.id);
    setPageHeaders(res);
    if (!view) {
      res.status(404).set('Cache-Control', 'no-store').send(NOT_FOUND_PAGE);
      return;
    }
    res.set('Cache-Control', 'public, no-cache').send(renderMessagePage(view, ctx.config.publicUrl));
  });
}
