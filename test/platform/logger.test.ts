// Log hygiene: a token passed in the query string (WebSocket clients may) never reaches a log line;
// a terminal gets readable lines, anything else JSON.
import { describe, expect, it } from '@jest/globals';
import { PassThrough } from 'node:stream';
import { createLogger, logFormatFor, redactUrl } from '../../src/platform/logger.js';

describe('redactUrl', () => {
  it('when a URL carries access_token, then its value is blanked and the rest kept', () => {
    expect(redactUrl('/v1/ws/v1?since=4&access_token=svc_session_ab.cd&x=1')).toBe(
      '/v1/ws/v1?since=4&access_token=[redacted]&x=1',
    );
    expect(redactUrl('/v1/ws/v1?ACCESS_TOKEN=secret')).toBe('/v1/ws/v1?ACCESS_TOKEN=[redacted]');
  });

  it('when a URL has no token, then it is unchanged', () => {
    expect(redactUrl('/v1/messages?limit=5')).toBe('/v1/messages?limit=5');
    expect(redactUrl(undefined)).toBeUndefined();
  });
});

describe('logFormatFor and pretty logs', () => {
  it('when stdout is a terminal, then logs are pretty; when it is a pipe, JSON; LOG_FORMAT wins over both', () => {
    expect(logFormatFor({}, true)).toBe('pretty');
    expect(logFormatFor({}, false)).toBe('json');
    expect(logFormatFor({ LOG_FORMAT: 'json' }, true)).toBe('json');
    expect(logFormatFor({ LOG_FORMAT: 'pretty' }, false)).toBe('pretty');
  });

  it('when the format is pretty, then a request is one readable line with its method, URL and status, and secrets stay redacted', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const log = createLogger('info', { format: 'pretty', destination: out });
    log.info({ port: 8080 }, 'Skein is listening');
    log.info(
      {
        req: { method: 'GET', url: '/v1/x', headers: { authorization: 'Bearer svc_session_a.b' } },
        res: { statusCode: 200 },
        password: { password: 'hunter2-hunter2' },
      },
      'request completed',
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const lines = text.trim().split('\n');
    expect(lines[0]).toMatch(/INFO: Skein is listening \{"port":8080\}$/);
    expect(lines[1]).toContain('GET /v1/x 200 request completed');
    expect(text).not.toContain('svc_session_a.b');
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('"level"');
  });
});
