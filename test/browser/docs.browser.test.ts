// The landing page at GET / and the API reference at GET /docs in headless Chromium: both load from
// this origin only, raise no CSP violation and log no error; the reference renders the operations
// of /v1/openapi.json and the landing page links every starting point.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { cspViolations, foreignRequests, launchBrowser, watchPage } from '../support/browser.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;
let browser: Browser;
beforeAll(async () => {
  [api, browser] = await Promise.all([startTestServer(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

describe('GET /docs in a browser', () => {
  it('when opened, then Swagger UI renders the operations from this origin only, without errors or CSP violations', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const watch = await watchPage(page);
    const response = await page.goto(`${api.url}/docs`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    // An operation block of the message-create route, with its operationId shown.
    const post = page.locator('#operations-messages-postMessages');
    await post.waitFor({ timeout: 30000 });
    await post.locator('.opblock-summary').click();
    await page
      .locator('#operations-messages-postMessages .opblock-body', { hasText: 'Idempotency-Key' })
      .waitFor();
    // "Try it out" on register or login signs this browser in (its cookie): the page says so.
    await expect(page.locator('.skein-note').textContent()).resolves.toContain('signs this browser in');
    expect(foreignRequests(watch, api.url)).toEqual([]);
    expect(watch.requests).toContain(`${api.url}/v1/openapi.json`);
    expect(watch.errors).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    await context.close();
  });
});

describe('GET / in a browser', () => {
  it('when opened, then it links the reference, GraphiQL and the OpenAPI document, and each link works', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const watch = await watchPage(page);
    const response = await page.goto(`${api.url}/`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    const links = await page.locator('main a').all();
    const hrefs = (await Promise.all(links.map((link) => link.getAttribute('href')))).map(
      (href) => new URL(href ?? '', `${api.url}/`).href,
    );
    expect(hrefs).toEqual(
      expect.arrayContaining([`${api.url}/docs`, `${api.url}/graphql`, `${api.url}/v1/openapi.json`]),
    );
    for (const href of hrefs) {
      const res = await fetch(href, { headers: { accept: 'text/html,application/json' } });
      expect({ href, status: res.status }).toEqual({ href, status: 200 });
    }
    expect(foreignRequests(watch, api.url)).toEqual([]);
    expect(watch.errors).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    await context.close();
  });
});

describe('GET / for API clients', () => {
  it('when JSON is preferred, then the same links come as JSON', async () => {
    const res = await api.request<{ links: { rel: string; href: string }[] }>('GET', '/', {
      headers: { accept: 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(res.body.links.map((link) => link.href)).toEqual(
      expect.arrayContaining(['/docs', '/graphql', '/v1/openapi.json']),
    );
  });
});
