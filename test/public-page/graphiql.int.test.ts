// GraphiQL at GET /graphql (HTML for browsers, Apollo for everyone else) and its assets under
// GET /graphql/assets/{file}; the cookie-CSRF rule still holds for the explorer's requests.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { registerUser } from '../support/factories.js';
import { cookieValue, startTestServer, type TestServer } from '../support/test-server.js';

const BROWSER_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

async function get(pathAndQuery: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(api.url + pathAndQuery, { headers, redirect: 'manual' });
}

async function explorerAssets(): Promise<string[]> {
  const html = await (await get('/graphql', { accept: BROWSER_ACCEPT })).text();
  return [...html.matchAll(/(?:src|href)="(graphql\/assets\/[^"]+)"/g)].map((match) => `/${match[1]!}`);
}

const packageFile = (name: string, file: string): string =>
  path.join(path.dirname(createRequire(import.meta.url).resolve(`${name}/package.json`)), file);

describe('GET /graphql', () => {
  it('when a browser asks without a query, then it gets the GraphiQL page with a strict CSP', async () => {
    const res = await get('/graphql', { accept: BROWSER_ACCEPT });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('vary')).toMatch(/accept/i);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("connect-src 'self'");
    const html = await res.text();
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<div id="graphiql">');
    // Every script is a served file of this origin: no inline script, no CDN.
    const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((match) => match[1]!);
    expect(scripts.length).toBe(5);
    for (const attributes of scripts) expect(attributes).toMatch(/^ src="graphql\/assets\/[\w.@-]+\.js"$/);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('when the client wants JSON or says nothing, then the request reaches Apollo unchanged', async () => {
    for (const accept of ['application/json', '*/*', 'application/graphql-response+json, text/html;q=0.5']) {
      const res = await get('/graphql', { accept });
      expect(res.headers.get('content-type')).toMatch(/^application\/(graphql-response\+)?json/);
      expect(res.status).toBe(400);
    }
    const bare = await fetch(api.url + '/graphql', { headers: {} });
    expect(bare.headers.get('content-type')).not.toMatch(/text\/html/);
  });

  it('when a browser GET carries a query, then Apollo answers it, with its CSRF prevention intact', async () => {
    const query = `/graphql?query=${encodeURIComponent('{ health }')}`;
    const blocked = await get(query, { accept: BROWSER_ACCEPT });
    expect(blocked.status).toBe(400);
    expect(await blocked.text()).toMatch(/CSRF|preflight/i);
    const allowed = await get(query, { accept: BROWSER_ACCEPT, 'apollo-require-preflight': 'true' });
    expect(allowed.status).toBe(200);
    expect(await allowed.json()).toEqual({ data: { health: true } });
  });

  it('when a browser asks for /graphql/, then it is sent to /graphql', async () => {
    const res = await get('/graphql/', { accept: BROWSER_ACCEPT });
    expect(res.status).toBe(308);
    expect(new URL(res.headers.get('location')!, `${api.url}/graphql/`).pathname).toBe('/graphql');
  });

  it('when POST /graphql comes with the session cookie, then same-origin works and a foreign Origin is refused', async () => {
    const user = await registerUser(api);
    const login = await api.request('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: user.password },
    });
    const cookie = `svc_session=${cookieValue(login.cookies.svc_session)!}`;
    const body = { query: '{ me { user_tag } }' };
    const same = await api.request<{ data: { me: { user_tag: string } } }>('POST', '/graphql', {
      cookie,
      body,
      headers: { origin: api.url },
    });
    expect(same.status).toBe(200);
    expect(same.body.data.me.user_tag).toBe(user.tag);
    const forged = await api.request<{ data: unknown; errors: { extensions: { code: string } }[] }>(
      'POST',
      '/graphql',
      { cookie, body, headers: { origin: 'https://evil.example' } },
    );
    expect(forged.status).toBe(403);
    expect(forged.body.errors[0]!.extensions.code).toBe('csrf_rejected');
  });
});

describe('GET /graphql/assets/{file}', () => {
  it('when the page names an asset, then it is served from this origin with the right type and caching', async () => {
    const assets = await explorerAssets();
    expect(assets.filter((asset) => asset.endsWith('.js'))).toHaveLength(5);
    expect(assets.filter((asset) => asset.endsWith('.css'))).toHaveLength(2);
    for (const asset of assets) {
      const res = await get(asset);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(
        asset.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
      );
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
  });

  it('when the packages are served, then the bytes are those of the installed React 18 and graphiql 3 builds', async () => {
    const assets = await explorerAssets();
    const expected: [RegExp, string][] = [
      [/\/react-18\.[\d.]+\.production\.min\.js$/, packageFile('react', 'umd/react.production.min.js')],
      [
        /\/react-dom-18\.[\d.]+\.production\.min\.js$/,
        packageFile('react-dom', 'umd/react-dom.production.min.js'),
      ],
      [/\/graphiql-3\.[\d.]+\.min\.js$/, packageFile('graphiql', 'graphiql.min.js')],
      [/\/graphiql-3\.[\d.]+\.min\.css$/, packageFile('graphiql', 'graphiql.min.css')],
    ];
    for (const [pattern, file] of expected) {
      const asset = assets.find((name) => pattern.test(name));
      expect(asset).toBeDefined();
      const served = Buffer.from(await (await get(asset!)).arrayBuffer());
      expect(served.equals(readFileSync(file))).toBe(true);
    }
  });

  it('when the asset is unknown or a path escape, then the answer is 404', async () => {
    for (const asset of [
      'nope.js',
      '..%2Fpackage.json',
      '..%2F..%2Fpackage.json',
      'react.production.min.js',
    ]) {
      const res = await get(`/graphql/assets/${asset}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ code: 'not_found' });
    }
  });
});
