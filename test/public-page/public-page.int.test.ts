// The public page: GET /messages/{id} (HTML, outside /v1).
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const PUBLIC_URL = 'https://skein.example/base';

let api: TestServer;
let alice: TestUser;
let bob: TestUser;
beforeAll(async () => {
  api = await startTestServer({ PUBLIC_URL });
  alice = await registerWriter(api);
  bob = await registerWriter(api);
  const profile = await api.request('POST', '/v1/users/profile', {
    token: alice.token,
    body: { display_name: 'Alice Example' },
  });
  expect(profile.status).toBe(200);
});
afterAll(async () => {
  await api.close();
});

interface Page {
  status: number;
  html: string;
  headers: Headers;
}

async function getPage(id: string, headers: Record<string, string> = {}): Promise<Page> {
  const res = await fetch(`${api.url}/messages/${id}`, { headers: { accept: 'text/html', ...headers } });
  return { status: res.status, html: await res.text(), headers: res.headers };
}

function unescape(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** Content of <meta property="…">, unescaped; undefined when absent. */
function meta(html: string, property: string): string | undefined {
  const match = new RegExp(`<meta property="${property}" content="([^"]*)">`).exec(html);
  return match ? unescape(match[1]!) : undefined;
}

async function setPublic(token: string, id: string, value: boolean): Promise<void> {
  const res = await api.request('PATCH', `/v1/messages/${id}/public`, { token, body: { public: value } });
  expect(res.status).toBe(200);
}

const SECURITY_HEADERS = ['content-security-policy', 'x-content-type-options', 'referrer-policy'];

describe('GET /messages/{id}', () => {
  it('when the message is public, then the page shows its content, author, time, subject and tags', async () => {
    const message = await postMessage(api, alice.token, {
      content: 'Hello from the public page',
      subject: 'A public hello',
      tags: ['greeting', 'demo'],
      public: true,
    });
    const page = await getPage(message.id);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(page.html).toContain('<meta charset="utf-8">');
    expect(page.html).toContain('<div class="content" dir="auto">Hello from the public page</div>');
    expect(page.html).toContain('<h1 class="subject">A public hello</h1>');
    expect(page.html).toContain('<span class="name">Alice Example</span>');
    expect(page.html).toContain(`<span class="tag">@${alice.tag}</span>`);
    expect(page.html).toContain(`<time datetime="${message.timestamp as string}">`);
    expect(page.html).toMatch(/\d{1,2} [A-Z][a-z]+ \d{4}(,| at) \d{2}:\d{2} UTC<\/time>/);
    expect(page.html).toContain('<li>#greeting</li>');
    expect(page.html).toContain('<li>#demo</li>');
    expect(page.html).toContain('<title>A public hello · Skein</title>');
  });

  it('when the page is served, then it carries the security and caching headers and no script', async () => {
    const message = await postMessage(api, alice.token, { content: 'headers', public: true });
    const page = await getPage(message.id);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'/);
    expect(csp).not.toContain('script-src');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('public, no-cache');
    expect(page.headers.get('etag')).toBeTruthy();
    expect(page.html).not.toMatch(/<script/i);
  });

  it('when the stylesheet is hashed in the CSP, then the hash matches the inline style', async () => {
    const message = await postMessage(api, alice.token, { content: 'style hash', public: true });
    const page = await getPage(message.id);
    const style = /<style>([\s\S]*?)<\/style>/.exec(page.html)![1]!;
    const hash = createHash('sha256').update(style).digest('base64');
    expect(page.headers.get('content-security-policy')).toContain(`'sha256-${hash}'`);
  });

  it('when the page is asked again with its ETag, then the answer is 304', async () => {
    const message = await postMessage(api, alice.token, { content: 'etag', public: true });
    const first = await getPage(message.id);
    // An explicit Cache-Control, as a browser's revalidation sends: fetch() would add `no-cache` otherwise.
    const again = await getPage(message.id, {
      'if-none-match': first.headers.get('etag')!,
      'cache-control': 'max-age=0',
    });
    expect(again.status).toBe(304);
  });

  it('when content, subject and tags hold markup, then the raw HTML carries it escaped', async () => {
    const content = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2"> & \'quoted\'';
    const subject = '"><script>alert(1)</script><b x=\'';
    const message = await postMessage(api, alice.token, { content, subject, tags: ['a:b/c'], public: true });
    const page = await getPage(message.id);
    expect(page.status).toBe(200);
    expect(page.html).not.toMatch(/<script/i);
    expect(page.html).not.toContain('<img');
    expect(page.html).not.toContain('<b x=');
    expect(page.html).toContain(
      '&lt;script&gt;window.__xss=1&lt;/script&gt;&lt;img src=x onerror=&quot;window.__xss=2&quot;&gt; &amp; &#39;quoted&#39;',
    );
    expect(page.html).toContain(
      '<h1 class="subject">&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;b x=&#39;</h1>',
    );
    expect(meta(page.html, 'og:title')).toBe(subject);
    expect(meta(page.html, 'og:description')).toBe(content);
    expect(meta(page.html, 'article:tag')).toBe('a:b/c');
  });

  it('when the message is public, then the page has Open Graph tags and a canonical link', async () => {
    const long = `${'word '.repeat(100)}end`;
    const message = await postMessage(api, alice.token, { content: long, public: true });
    const page = await getPage(message.id);
    const url = `${PUBLIC_URL}/messages/${message.id}`;
    expect(page.html).toContain(`<link rel="canonical" href="${url}">`);
    expect(meta(page.html, 'og:url')).toBe(url);
    expect(meta(page.html, 'og:type')).toBe('article');
    expect(meta(page.html, 'article:published_time')).toBe(message.timestamp);
    expect(meta(page.html, 'article:author')).toBe(`Alice Example (@${alice.tag})`);
    // No subject: the title is the author and the start of the content.
    expect(meta(page.html, 'og:title')).toMatch(/^Alice Example: word word .*…$/);
    const description = meta(page.html, 'og:description')!;
    expect(Array.from(description).length).toBeLessThanOrEqual(200);
    expect(description.endsWith('…')).toBe(true);
    expect(long.startsWith(description.slice(0, -1))).toBe(true);
  });

  it('when the author has no display name, then the tag stands for the author', async () => {
    const message = await postMessage(api, bob.token, { content: 'no name', public: true });
    const page = await getPage(message.id);
    expect(page.html).not.toContain('class="name"');
    expect(meta(page.html, 'article:author')).toBe(`@${bob.tag} (@${bob.tag})`);
  });

  it('when the ancestors are public, then they are shown above the message, root first, with links', async () => {
    const root = await postMessage(api, alice.token, { content: 'root of the thread', public: true });
    const middle = await postMessage(api, bob.token, {
      content: 'middle reply',
      parent_id: root.id,
      public: true,
    });
    const leaf = await postMessage(api, alice.token, {
      content: 'leaf reply',
      parent_id: middle.id,
      public: true,
    });
    const page = await getPage(leaf.id);
    expect(page.status).toBe(200);
    const order = [root.id, middle.id, leaf.id].map((id) => page.html.indexOf(`data-message-id="${id}"`));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(page.html).toContain(`<a href="./${root.id}">`);
    expect(page.html).toContain(`<a href="./${middle.id}">`);
    expect(page.html).toContain('root of the thread');
    expect(page.html).toContain('middle reply');
    expect(page.html).toContain(`<span class="tag">@${bob.tag}</span>`);
  });

  it('when a private message sits in the middle of the chain, then the chain stops below it and nothing of it or above it shows', async () => {
    const root = await postMessage(api, alice.token, { content: 'secret-root-text', public: true });
    const hidden = await postMessage(api, bob.token, {
      content: 'secret-middle-text',
      subject: 'secret-middle-subject',
      parent_id: root.id,
      recipients: [alice.tag],
    });
    const above = await postMessage(api, alice.token, {
      content: 'visible-parent-text',
      parent_id: hidden.id,
      public: true,
    });
    const leaf = await postMessage(api, alice.token, {
      content: 'leaf-text',
      parent_id: above.id,
      public: true,
    });
    const page = await getPage(leaf.id);
    expect(page.status).toBe(200);
    expect(page.html).toContain('visible-parent-text');
    expect(page.html).toContain('leaf-text');
    for (const secret of [
      'secret-root-text',
      'secret-middle-text',
      'secret-middle-subject',
      root.id,
      hidden.id,
    ]) {
      expect(page.html).not.toContain(secret);
    }
    // The message right below the private one shows no context at all.
    const below = await getPage(above.id);
    expect(below.status).toBe(200);
    expect(below.html).not.toContain('<nav');
    expect(below.html).not.toContain(hidden.id);
    // And the public root keeps its own page.
    expect((await getPage(root.id)).status).toBe(200);
  });

  it('when the message is a root, then the page has no context section', async () => {
    const root = await postMessage(api, alice.token, { content: 'lonely root', public: true });
    const page = await getPage(root.id);
    expect(page.html).not.toContain('<nav');
  });

  it('when an ancestor is made private, then it leaves the context at once', async () => {
    const root = await postMessage(api, alice.token, { content: 'root-soon-private', public: true });
    const leaf = await postMessage(api, alice.token, {
      content: 'leaf-stays',
      parent_id: root.id,
      public: true,
    });
    expect((await getPage(leaf.id)).html).toContain('root-soon-private');
    await setPublic(alice.token, root.id, false);
    const page = await getPage(leaf.id);
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('root-soon-private');
    expect(page.html).not.toContain(root.id);
  });
});

describe('GET /messages/{id} for anything not public', () => {
  it('when the id is missing, private, made private, malformed or has a public descendant, then the 404 is the same page', async () => {
    const privateMessage = await postMessage(api, alice.token, { content: 'private text' });
    const recipientOnly = await postMessage(api, alice.token, { content: 'cc text', recipients: [bob.tag] });
    const madePrivate = await postMessage(api, alice.token, { content: 'was public', public: true });
    const privateParent = await postMessage(api, alice.token, { content: 'private parent' });
    await postMessage(api, alice.token, {
      content: 'public child',
      parent_id: privateParent.id,
      public: true,
    });
    expect((await getPage(madePrivate.id)).status).toBe(200);
    await setPublic(alice.token, madePrivate.id, false);

    const answers = await Promise.all(
      [
        randomBytes(4).toString('hex'), // well-formed, and (2^-32 odds aside) nothing has it
        privateMessage.id,
        recipientOnly.id,
        madePrivate.id,
        privateParent.id,
        'NOT-AN-ID',
        'ABCDEF12',
        'abc',
        '0123456789',
        '%3Cscript%3E',
      ].map((id) => getPage(id)),
    );
    const [first] = answers;
    expect(first!.status).toBe(404);
    for (const answer of answers) {
      expect(answer.status).toBe(404);
      expect(answer.html).toBe(first!.html);
      for (const header of [...SECURITY_HEADERS, 'content-type', 'cache-control', 'content-length']) {
        expect(answer.headers.get(header)).toBe(first!.headers.get(header));
      }
    }
    expect(first!.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(first!.headers.get('cache-control')).toBe('no-store');
    expect(first!.html).toContain('<html lang="en">');
    expect(first!.html).toContain('Not found');
    expect(first!.html).not.toMatch(/<script/i);
  });

  it("when the request carries the author's credentials, then a private message is still a 404", async () => {
    const privateMessage = await postMessage(api, alice.token, { content: 'mine only' });
    const page = await getPage(privateMessage.id, { authorization: `Bearer ${alice.token}` });
    expect(page.status).toBe(404);
    expect(page.html).not.toContain('mine only');
  });

  it('when a private message is made public, then its page appears', async () => {
    const message = await postMessage(api, alice.token, { content: 'soon public' });
    expect((await getPage(message.id)).status).toBe(404);
    await setPublic(alice.token, message.id, true);
    const page = await getPage(message.id);
    expect(page.status).toBe(200);
    expect(page.html).toContain('soon public');
  });
});
