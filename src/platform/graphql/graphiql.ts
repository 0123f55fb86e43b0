// GraphiQL, the GraphQL explorer, for browsers:
//   GET /graphql                 the explorer page, when the request has no `query` (or `extensions`)
//                                parameter and its Accept header prefers text/html over JSON. Every
//                                other GET /graphql (curl's */*, JSON clients, GET operations) goes on
//                                to Apollo unchanged.
//   GET /graphql/                (same conditions) redirects to ../graphql, so relative links hold.
//   GET /graphql/assets/:file    React 18, graphiql@3 and graphql-ws UMD builds and CSS, read from the installed
//                                packages (never a CDN), plus the small init script and page CSS.
//                                Names carry the package version or a content hash, so they are
//                                cached as immutable.
// The page runs GraphiQL against the same /graphql with a same-origin fetch: the session cookie
// goes along, and the cookie-CSRF check and Apollo's CSRF prevention apply as to any client (the
// fetcher POSTs application/json, which a cross-site form cannot). Links are relative so that a
// PUBLIC_URL with a path prefix (stripped by the reverse proxy) still works.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Express, Request, Response } from 'express';
import { AppError } from '../errors.js';
import { APP_PAGE_CSP } from '../http/app-page-policy.js';

const require = createRequire(import.meta.url);

interface Asset {
  /** Absolute path of an installed package file, or the content itself. */
  file?: string;
  content?: string;
  type: string;
}

function packageDir(name: string): { dir: string; version: string } {
  const manifest = require.resolve(`${name}/package.json`);
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return { dir: path.dirname(manifest), version };
}

function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

const INIT_SCRIPT = `'use strict';
(function () {
  var root = document.getElementById('graphiql');
  // Relative to the page, so it is this service's /graphql however the proxy prefixes it.
  var url = new URL('graphql', window.location.href);
  // Subscriptions go over graphql-ws on the same path, with the same session cookie.
  var socketUrl = new URL(url.href);
  socketUrl.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  var fetcher = GraphiQL.createFetcher({
    url: url.href,
    wsClient: graphqlWs.createClient({ url: socketUrl.href, lazy: true, retryAttempts: 0 })
  });
  var defaultQuery = '# Skein GraphQL explorer. Requests carry this browser\\'s session cookie;\\n' +
    '# sign in through the API first to see your messages.\\n{\\n  health\\n}\\n';
  ReactDOM.createRoot(root).render(
    React.createElement(GraphiQL, { fetcher: fetcher, defaultQuery: defaultQuery, defaultEditorToolsVisibility: false })
  );
})();
`;

const PAGE_CSS = 'html,body{margin:0;height:100%;overflow:hidden}#graphiql{height:100vh}\n';

/** The assets by their URL name under /graphql/assets/. */
function buildAssets(): Map<string, Asset> {
  const react = packageDir('react');
  const reactDom = packageDir('react-dom');
  const graphiql = packageDir('graphiql');
  const graphqlWs = packageDir('graphql-ws');
  const js = 'text/javascript; charset=utf-8';
  const css = 'text/css; charset=utf-8';
  return new Map<string, Asset>([
    [
      `react-${react.version}.production.min.js`,
      { file: path.join(react.dir, 'umd/react.production.min.js'), type: js },
    ],
    [
      `react-dom-${reactDom.version}.production.min.js`,
      { file: path.join(reactDom.dir, 'umd/react-dom.production.min.js'), type: js },
    ],
    [`graphiql-${graphiql.version}.min.js`, { file: path.join(graphiql.dir, 'graphiql.min.js'), type: js }],
    [
      `graphql-ws-${graphqlWs.version}.min.js`,
      { file: path.join(graphqlWs.dir, 'umd/graphql-ws.min.js'), type: js },
    ],
    [
      `graphiql-${graphiql.version}.min.css`,
      { file: path.join(graphiql.dir, 'graphiql.min.css'), type: css },
    ],
    [`skein-graphiql-${contentHash(INIT_SCRIPT)}.js`, { content: INIT_SCRIPT, type: js }],
    [`skein-graphiql-${contentHash(PAGE_CSS)}.css`, { content: PAGE_CSS, type: css }],
  ]);
}

function renderPage(assetNames: string[]): string {
  const href = (name: string): string => `graphql/assets/${name}`;
  const styles = assetNames.filter((name) => name.endsWith('.css'));
  // Order matters: React, then ReactDOM, then GraphiQL (which reads both globals), graphql-ws, then
  // the init (which reads the last two).
  const scripts = assetNames.filter((name) => name.endsWith('.js'));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Skein · GraphQL explorer</title>
<link rel="icon" href="data:,">
${styles.map((name) => `<link rel="stylesheet" href="${href(name)}">`).join('\n')}
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
<noscript>GraphiQL needs JavaScript.</noscript>
${scripts.map((name) => `<script src="${href(name)}"></script>`).join('\n')}
</body>
</html>
`;
}

const COMMON_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

/** A browser asking for the page: no operation in the URL, and HTML preferred over JSON. */
function wantsExplorer(req: Request): boolean {
  const query = req.query as Record<string, unknown>;
  if (query.query !== undefined || query.extensions !== undefined) return false;
  return req.accepts(['application/json', 'application/graphql-response+json', 'text/html']) === 'text/html';
}

export function mountGraphiQL(app: Express): void {
  const assets = buildAssets();
  const page = renderPage([...assets.keys()]);

  app.get('/graphql', (req: Request, res: Response, next) => {
    if (!wantsExplorer(req)) {
      next();
      return;
    }
    if (req.path.endsWith('/')) {
      res.redirect(308, '../graphql');
      return;
    }
    res
      .status(200)
      .set({
        ...COMMON_HEADERS,
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': APP_PAGE_CSP,
        'X-Frame-Options': 'DENY',
        'Cache-Control': 'no-cache',
        Vary: 'Accept',
      })
      .send(page);
  });

  app.get('/graphql/assets/:file', (req: Request<{ file: string }>, res: Response, next) => {
    const asset = assets.get(req.params.file);
    if (!asset) {
      next(new AppError('not_found', 'No such path.'));
      return;
    }
    res.set({
      ...COMMON_HEADERS,
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
