// GraphiQL at GET /graphql in headless Chromium: it loads from this origin only, without console
// errors, and runs queries against /graphql, with the browser's session cookie.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  cspViolations,
  foreignRequests,
  launchBrowser,
  watchPage,
  type PageWatch,
} from '../support/browser.js';
import { postMessage, registerUser, registerWriter } from '../support/factories.js';
import { cookieValue, startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;
let browser: Browser;
beforeAll(async () => {
  [api, browser] = await Promise.all([startTestServer(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

async function openExplorer(context: BrowserContext): Promise<{ page: Page; watch: PageWatch }> {
  const page = await context.newPage();
  const watch = await watchPage(page);
  const response = await page.goto(`${api.url}/graphql`, { waitUntil: 'load' });
  expect(response?.status()).toBe(200);
  await page.locator('.graphiql-container').waitFor();
  await page.locator('.graphiql-query-editor .CodeMirror').waitFor();
  return { page, watch };
}

/** Clicks the run button and answers the response pane's text once it holds `expected`. */
async function runAndWaitFor(page: Page, expected: string): Promise<string> {
  await page.locator('button.graphiql-execute-button').click();
  // A locator filter, not waitForFunction: the page's CSP forbids the eval that the latter needs.
  await page.locator('.graphiql-response', { hasText: expected }).waitFor({ timeout: 15000 });
  return (await page.locator('.graphiql-response').textContent()) ?? '';
}

describe('GraphiQL in a browser', () => {
  it('when opened, then it loads from this origin only, logs no error and runs the default { health } query', async () => {
    const context = await browser.newContext();
    const { page, watch } = await openExplorer(context);
    const editor = (await page.locator('.graphiql-query-editor').textContent()) ?? '';
    expect(editor).toContain('health');
    const result = await runAndWaitFor(page, '"health": true');
    expect(result).toContain('"health": true');
    // The schema reached the docs explorer through introspection, in the same origin's /graphql.
    await page.locator('button[aria-label="Show Documentation Explorer"]').click();
    await page.locator('.graphiql-doc-explorer', { hasText: 'Root Types' }).waitFor();
    expect(foreignRequests(watch, api.url)).toEqual([]);
    const assets = watch.requests.filter((url) => url.includes('/graphql/assets/'));
    expect(assets.filter((url) => url.endsWith('.js'))).toHaveLength(5);
    expect(assets.filter((url) => url.endsWith('.css'))).toHaveLength(2);
    expect(watch.errors).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    await context.close();
  });

  it('when the browser holds a session cookie, then queries run as that user', async () => {
    const user = await registerUser(api);
    const login = await api.request('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: user.password },
    });
    const context = await browser.newContext();
    await context.addCookies([
      { name: 'svc_session', value: cookieValue(login.cookies.svc_session)!, url: api.url, httpOnly: true },
    ]);
    // GraphiQL starts from the query it stored last; seed it instead of typing into CodeMirror.
    await context.addInitScript(`localStorage.setItem('graphiql:query', '{ me { user_tag } }');`);
    const { page, watch } = await openExplorer(context);
    const result = await runAndWaitFor(page, user.tag);
    expect(result).toContain(`"user_tag": "${user.tag}"`);
    expect(watch.errors).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    await context.close();
  });

  it('when a subscription runs with the session cookie, then a message posted to that user shows in the result pane', async () => {
    const user = await registerWriter(api);
    const author = await registerWriter(api);
    const login = await api.request('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: user.password },
    });
    const context = await browser.newContext();
    await context.addCookies([
      { name: 'svc_session', value: cookieValue(login.cookies.svc_session)!, url: api.url, httpOnly: true },
    ]);
    await context.addInitScript(
      `localStorage.setItem('graphiql:query', 'subscription { notifications { cursor event { type } } }');`,
    );
    const { page, watch } = await openExplorer(context);
    await page.locator('button.graphiql-execute-button').click();
    // Posts made before the subscription is live are not for it: post until one shows.
    let shown = false;
    for (let attempt = 0; !shown; attempt++) {
      if (attempt === 30) {
        const pane = await page.locator('.graphiql-response').textContent();
        throw new Error(`no notification shown; pane: ${pane}; errors: ${watch.errors.join(' | ')}`);
      }
      await postMessage(api, author.token, { content: `to the explorer ${attempt}`, recipients: [user.tag] });
      shown = await page
        .locator('.graphiql-response', { hasText: '"sent"' })
        .waitFor({ timeout: 500 })
        .then(
          () => true,
          () => false,
        );
    }
    expect(watch.errors).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    await context.close();
  });

  it('when a query is typed into the editor, then its result shows', async () => {
    const context = await browser.newContext();
    const { page, watch } = await openExplorer(context);
    await page.locator('.graphiql-query-editor .CodeMirror').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('{ health');
    const result = await runAndWaitFor(page, '"health": true');
    expect(result).not.toContain('errors');
    expect(watch.errors).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    await context.close();
  });
});
