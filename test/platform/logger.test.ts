// Log hygiene: a token passed in the query string (WebSocket clients may) never reaches a log line.
import { describe, expect, it } from '@jest/globals';
import { redactUrl } from '../../src/platform/logger.js';

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
