// Headless Chromium for the browser tests: Debian's `chromium` package (npm test installs it when
// missing: system-packages.ts),
// driven by playwright-core. A missing browser is a failure, never a skip: these tests are the only
// proof that the pages behave in a real browser.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM_PATH}: the browser tests need Debian's chromium package ` +
        '(apt-get install chromium; npm test installs it when it runs as root).',
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface PageWatch {
  /** Every URL the page requested, in order. */
  requests: string[];
  /** Console errors, uncaught page errors and failed (4xx/5xx) responses. */
  errors: string[];
}

/**
 * Records what a page requests, which errors it logs and which Content-Security-Policy violations
 * it raises, from its next navigation on. The violation listener is installed through the DevTools
 * protocol, which the page's own CSP does not restrict.
 */
export async function watchPage(page: Page): Promise<PageWatch> {
  const watch: PageWatch = { requests: [], errors: [] };
  page.on('request', (request) => watch.requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') watch.errors.push(message.text());
  });
  page.on('pageerror', (error) => watch.errors.push(error.message));
  page.on('response', (response) => {
    if (response.status() >= 400) watch.errors.push(`${response.status()} ${response.url()}`);
  });
  await page.addInitScript(
    "window.__cspViolations = []; document.addEventListener('securitypolicyviolation', (e) => " +
      "window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));",
  );
  return watch;
}

/** The CSP violations the page has raised so far (see watchPage). */
export async function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate<string[]>('window.__cspViolations ?? ["watchPage was not installed"]');
}

/** Requests that left the given origin (data: URLs are not requests to anyone). */
export function foreignRequests(watch: PageWatch, origin: string): string[] {
  return watch.requests.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin);
}
