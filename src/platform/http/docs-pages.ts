// The pages a newcomer opens first:
//   GET /                    a small landing page linking the API reference, GraphiQL, the OpenAPI
//                            document and the public message pages (JSON links for API clients).
//   GET /docs                the browsable API reference: Swagger UI over /v1/openapi.json.
//   GET /docs/                redirects to ../docs, so relative links hold.
//   GET /docs/assets/:file   swagger-ui-dist's bundle and CSS, read from the installed package (never a
//                            CDN), and the small init script. Names carry the package version or a
//                            content hash, so they are cached as immutable.
// No page has an inline script, so both pass a CSP of script-src 'self'. Links are relative so that a
// PUBLIC_URL with a path prefix (stripped by the reverse proxy) still works.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Express, Request, Response } from 'express';
import { AppError } from '../errors.js';
import { APP_PAGE_CSP } from './app-page-policy.js';

const require = createRequire(import.meta.url);

interface Asset {
  /** Absolute path of an installed package file, or the content itself. */
  file?: string;
  content?: string;
  type: string;
}

// Swagger UI reads the document from this origin; "Try it out" sends the browser's session cookie
// (or the Bearer token given under "Authorize"). validatorUrl null: the default badge calls out to
// validator.swagger.io, and this page never talks to another origin.
const INIT_SCRIPT = `'use strict';
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: new URL('v1/openapi.json', window.location.href).href,
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    displayOperationId: true,
    tryItOutEnabled: false,
    persistAuthorization: false,
    withCredentials: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
});
`;

const PAGE_CSS =
  'body{margin:0}.skein-bar{font:14px system-ui,sans-serif;padding:8px 16px;background:#1b1f24}' +
  '.skein-bar a{color:#9cdcfe;margin-right:16px}.skein-note{color:#c8ccd0}' +
  'main{max-width:42rem;margin:2rem auto;padding:0 1rem;font:16px/1.5 system-ui,sans-serif}\n';

function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

function buildAssets(): Map<string, Asset> {
  const manifest = require.resolve('swagger-ui-dist/package.json');
  const dir = path.dirname(manifest);
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  const js = 'text/javascript; charset=utf-8';
  const css = 'text/css; charset=utf-8';
  return new Map<string, Asset>([
    [`swagger-ui-${version}.css`, { file: path.join(dir, 'swagger-ui.css'), type: css }],
    [`skein-docs-${contentHash(PAGE_CSS)}.css`, { content: PAGE_CSS, type: css }],
    [`swagger-ui-bundle-${version}.js`, { file: path.join(dir, 'swagger-ui-bundle.js'), type: js }],
    [`skein-docs-${contentHash(INIT_SCRIPT)}.js`, { content: INIT_SCRIPT, type: js }],
  ]);
}

function renderDocsPage(assetNames: string[]): string {
  const href = (name: string): string => `docs/assets/${name}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Skein · API reference</title>
<link rel="icon" href="data:,">
${assetNames
  .filter((name) => name.endsWith('.css'))
  .map((name) => `<link rel="stylesheet" href="${href(name)}">`)
  .join('\n')}
</head>
<body>
<nav class="skein-bar"><a href="./">Skein</a><a href="graphql">GraphiQL</a><a href="v1/openapi.json">openapi.json</a>
<span class="skein-note">"Try it out" sends and keeps this browser's session cookie: registering or signing in here signs this browser in, GraphiQL included.</span></nav>
<div id="swagger-ui">Loading the API reference…</div>
<noscript>The API reference needs JavaScript; the raw document is at <a href="v1/openapi.json">v1/openapi.json</a>.</noscript>
${assetNames
  .filter((name) => name.endsWith('.js'))
  .map((name) => `<script src="${href(name)}"></script>`)
  .join('\n')}
</body>
</html>
`;
}

const LINKS = [
  {
    rel: 'docs',
    href: 'docs',
    title: 'API reference',
    text: 'Every REST operation, with examples (Swagger UI).',
  },
  { rel: 'graphiql', href: 'graphql', title: 'GraphiQL', text: 'The same API in GraphQL, in your browser.' },
  {
    rel: 'openapi',
    href: 'v1/openapi.json',
    title: 'openapi.json',
    text: 'The OpenAPI 3.1 document, for code generators.',
  },
  {
    rel: 'public',
    href: 'messages/{message_id}',
    title: 'Public pages',
    text: 'A public message at /messages/{message_id}.',
  },
  {
    rel: 'health',
    href: 'readyz',
    title: 'Readiness',
    text: '/healthz (process up) and /readyz (Neo4j answers).',
  },
];

const LANDING_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Skein</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="docs/assets/skein-docs-${contentHash(PAGE_CSS)}.css">
</head>
<body>
<main>
<h1>Skein</h1>
<p>Real-time messaging for people and bots, where messages form a graph.</p>
<ul>
${LINKS.filter((link) => link.rel !== 'public')
  .map((link) => `<li><a href="${link.href}">${link.title}</a>: ${link.text}</li>`)
  .join('\n')}
<li>Public pages: a public message is readable by anyone at <code>/messages/&lt;id&gt;</code>.</li>
</ul>
<p>New here? The README's quickstart goes from registering to a bot's reply in a few curl commands.</p>
</main>
</body>
</html>
`;

const HTML_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': APP_PAGE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-cache',
};

export function mountDocsPages(app: Express): void {
  const assets = buildAssets();
  const docsPage = renderDocsPage([...assets.keys()]);

  app.get('/', (req: Request, res: Response) => {
    // curl and API clients get the same links as JSON; browsers get the page.
    if (req.accepts(['application/json', 'text/html']) === 'application/json') {
      res.set('Vary', 'Accept').json({
        name: 'Skein',
        links: LINKS.map(({ rel, href, title }) => ({ rel, href: `/${href}`, title })),
      });
      return;
    }
    res
      .status(200)
      .set({ ...HTML_HEADERS, Vary: 'Accept' })
      .send(LANDING_PAGE);
  });

  app.get('/docs', (req: Request, res: Response) => {
    if (req.path.endsWith('/')) {
      res.redirect(308, '../docs');
      return;
    }
    res.status(200).set(HTML_HEADERS).send(docsPage);
  });

  app.get('/docs/assets/:file', (req: Request<{ file: string }>, res: Response, next) => {
    const asset = assets.get(req.params.file);
    if (!asset) {
      next(new AppError('not_found', 'No such path.'));
      return;
    }
    res.set({
      'X-Content-Type-Options': 'nosniff',
      'Content-Type': asset.type,
      'Cache-Control': 'public, max-age=31536000, immutable',
    });
    if (asset.content !== undefined) {
      res.send(asset.content);
      return;
    }
    res.sendFile(asset.file!, { headers: { 'Content-Type': asset.type } }, (error) => {
      if (error && !res.headersSent) next(error);
    });
  });
}
