// The public page (GET /messages/{id}) in headless Chromium: it renders the message, shows injected
// markup as text without running it, and loads nothing from anywhere.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  cspViolations,
  foreignRequests,
  launchBrowser,
  watchPage,
  type PageWatch,
} from '../support/browser.js';
import { postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const XSS_CONTENT = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">';
const XSS_SUBJECT = '"><img src=x onerror="window.__xss=3"><script>window.__xss=4</script>';

let api: TestServer;
let browser: Browser;
let context: BrowserContext;
let alice: TestUser;
beforeAll(async () => {
  [api, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  context = await browser.newContext();
  alice = await registerWriter(api);
  const profile = await api.request('POST', '/v1/users/profile', {
    token: alice.token,
    body: { display_name: 'Alice in Chromium' },
  });
  expect(profile.status).toBe(200);
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await api?.close();
});

async function open(path: string): Promise<{ page: Page; watch: PageWatch; status: number | undefined }> {
  const page = await context.newPage();
  const watch = await watchPage(page);
  const response = await page.goto(api.url + path, { waitUntil: 'load' });
  return { page, watch, status: response?.status() };
}

async function xssMarker(page: Page): Promise<unknown> {
  return page.evaluate('typeof window.__xss === "undefined" ? "untouched" : window.__xss');
}

describe('the public page in a browser', () => {
  it('when a public message is opened, then the page shows its text and author', async () => {
    const message = await postMessage(api, alice.token, {
      content: 'Rendered in a real browser',
      subject: 'Browser check',
      tags: ['chromium'],
      public: true,
    });
    const { page, watch, status } = await open(`/messages/${message.id}`);
    expect(status).toBe(200);
    const article = page.locator(`article[data-message-id="${message.id}"]`);
    expect(await article.locator('.content').textContent()).toBe('Rendered in a real browser');
    expect(await article.locator('.name').textContent()).toBe('Alice in Chromium');
    expect(await article.locator('.tag').textContent()).toBe(`@${alice.tag}`);
    expect(await article.locator('h1').textContent()).toBe('Browser check');
    expect(await article.locator('.tags li').allTextContents()).toEqual(['#chromium']);
    expect(await page.title()).toBe('Browser check · Skein');
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    // The inline stylesheet applied (its CSP hash matched): the content keeps its line breaks.
    const whiteSpace = await page.evaluate(
      `getComputedStyle(document.querySelector('article[data-message-id="${message.id}"] .content')).whiteSpace`,
    );
    expect(whiteSpace).toBe('pre-wrap');
    expect(watch.errors).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    await page.close();
  });

  it('when content and subject carry script and attribute-breaking markup, then they show as text and nothing runs', async () => {
    const root = await postMessage(api, alice.token, {
      content: `parent ${XSS_CONTENT}`,
      subject: XSS_SUBJECT,
      public: true,
    });
    const message = await postMessage(api, alice.token, {
      content: XSS_CONTENT,
      subject: XSS_SUBJECT,
      tags: ['xss'],
      parent_id: root.id,
      public: true,
    });
    const { page, watch, status } = await open(`/messages/${message.id}`);
    expect(status).toBe(200);
    const article = page.locator(`article[data-message-id="${message.id}"]`);
    expect(await article.locator('.content').textContent()).toBe(XSS_CONTENT);
    expect(await article.locator('h1').textContent()).toBe(XSS_SUBJECT);
    const parent = page.locator(`article[data-message-id="${root.id}"]`);
    expect(await parent.locator('.content').textContent()).toBe(`parent ${XSS_CONTENT}`);
    expect(await parent.locator('h2').textContent()).toBe(XSS_SUBJECT);
    expect(await page.locator('script, img').count()).toBe(0);
    expect(await page.locator('meta[property="og:title"]').getAttribute('content')).toBe(XSS_SUBJECT);
    expect(await page.title()).toBe(`${XSS_SUBJECT} · Skein`);
    expect(await xssMarker(page)).toBe('untouched');
    expect(watch.errors).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    await page.close();
  });

  it('when an imported message carries markup in its attribution, then it shows as text and nothing runs', async () => {
    const res = await api.request<{ ok: boolean; message: { id: string } }[]>(
      'POST',
      '/v1/messages/import/quote',
      {
        token: alice.token,
        body: {
          content: 'quoted',
          public: true,
          import_info: {
            source: '"><script>window.__xss=5</script>',
            author_name: '<img src=x onerror="window.__xss=6">',
            url: 'https://example.com/"onmouseover="window.__xss=7',
          },
        },
      },
    );
    expect(res.status).toBe(200);
    const id = res.body[0]!.message.id;
    const { page, status } = await open(`/messages/${id}`);
    expect(status).toBe(200);
    const quoted = page.locator('.quoted');
    expect(await quoted.textContent()).toBe(
      'Quoted from "><script>window.__xss=5</script>: <img src=x onerror="window.__xss=6">',
    );
    expect(await quoted.locator('a').getAttribute('onmouseover')).toBeNull();
    await quoted.locator('a').hover();
    expect(await page.locator('script, img').count()).toBe(0);
    expect(await xssMarker(page)).toBe('untouched');
    expect(await cspViolations(page)).toEqual([]);
    await page.close();
  });

  it('when the page loads, then it requests nothing from any other origin (nor anything else at all)', async () => {
    const message = await postMessage(api, alice.token, { content: 'quiet page', public: true });
    const { page, watch } = await open(`/messages/${message.id}`);
    expect(foreignRequests(watch, api.url)).toEqual([]);
    expect(watch.requests).toEqual([`${api.url}/messages/${message.id}`]);
    expect(await cspViolations(page)).toEqual([]);
    await page.close();
  });

  it('when the message is not public, then the browser gets the 404 page', async () => {
    const message = await postMessage(api, alice.token, { content: 'private in the browser' });
    const { page, status } = await open(`/messages/${message.id}`);
    expect(status).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Not found');
    expect(await page.content()).not.toContain('private in the browser');
    await page.close();
  });
});
