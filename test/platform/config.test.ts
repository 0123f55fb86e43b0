// loadConfig(env): defaults, and a clear ConfigError naming the variable for every bad value.
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '../../src/platform/config.js';

/** The error loadConfig throws for `env`, or a failure when it throws none. */
function configErrorOf(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig defaults', () => {
  it('when the environment is empty, then the contract defaults apply', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.neo4j.embeddedPort).toBe(7687);
    expect(config.sessionTtlSeconds).toBe(30 * 24 * 3600);
    expect(config.rateLimits.authPerMinute).toBe(60);
    expect(config.dataDir).toBe(path.resolve('./data'));
    expect(config.neo4j.uri).toBeUndefined();
    expect(config.redisUrl).toBeUndefined();
    expect(config.admin).toBeUndefined();
    expect(config.bcryptCost).toBeGreaterThanOrEqual(12);
    expect(config.publicUrl).toBe('http://localhost:8080');
    expect(config.secureCookies).toBe(false);
    expect(config.webhookAllowPrivate).toBe(false);
    expect(config.postWriters).toBe(4);
    expect(config.neo4j.embeddedNice).toBe(10);
  });

  it('when values are given, then they are used', () => {
    const config = loadConfig({
      PORT: '9001',
      SKEIN_NEO4J_PORT: '7999',
      SKEIN_DATA_DIR: '/tmp/skein-config-test',
      SKEIN_SESSION_TTL_SECONDS: '3600',
      SKEIN_RATE_LIMIT_AUTH_PER_MIN: '5000',
      NEO4J_URI: 'neo4j://db.internal:7687',
      NEO4J_PASSWORD: 'secret',
      REDIS_URL: 'redis://cache:6379',
      SKEIN_ADMIN_TAG: 'root',
      SKEIN_ADMIN_PASSWORD: 'an-admin-passphrase',
      SKEIN_WEBHOOK_ALLOW_PRIVATE: 'true',
      SKEIN_POST_WRITERS: '16',
      SKEIN_NEO4J_NICE: '0',
    });
    expect(config.port).toBe(9001);
    expect(config.neo4j.embeddedPort).toBe(7999);
    expect(config.dataDir).toBe('/tmp/skein-config-test');
    expect(config.sessionTtlSeconds).toBe(3600);
    expect(config.rateLimits.authPerMinute).toBe(5000);
    expect(config.neo4j.uri).toBe('neo4j://db.internal:7687');
    expect(config.neo4j.password).toBe('secret');
    expect(config.redisUrl).toBe('redis://cache:6379');
    expect(config.admin).toEqual({ tag: 'root', password: 'an-admin-passphrase' });
    expect(config.publicUrl).toBe('http://localhost:9001');
    expect(config.webhookAllowPrivate).toBe(true);
    expect(config.postWriters).toBe(16);
    expect(config.neo4j.embeddedNice).toBe(0);
  });

  it('when NEO4J_URI uses bolt, bolt+s or neo4j+s, then it is accepted', () => {
    for (const uri of [
      'bolt://localhost:7687',
      'bolt+s://db.example.com',
      'neo4j+s://x.databases.neo4j.io',
    ]) {
      expect(loadConfig({ NEO4J_URI: uri, NEO4J_PASSWORD: 'p' }).neo4j.uri).toBe(uri);
    }
  });
});

describe('loadConfig bad values', () => {
  it.each([
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '70000' }],
    ['SKEIN_NEO4J_PORT', { SKEIN_NEO4J_PORT: 'seven' }],
    ['NEO4J_URI', { NEO4J_URI: 'http://x', NEO4J_PASSWORD: 'p' }],
    ['SKEIN_BCRYPT_COST', { SKEIN_BCRYPT_COST: '4' }],
    ['REDIS_URL', { REDIS_URL: 'http://x' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'nope' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'ftp://files.example.com' }],
    ['SKEIN_SESSION_TTL_SECONDS', { SKEIN_SESSION_TTL_SECONDS: '0' }],
    ['SKEIN_RATE_LIMIT_AUTH_PER_MIN', { SKEIN_RATE_LIMIT_AUTH_PER_MIN: '-1' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['SKEIN_POST_WRITERS', { SKEIN_POST_WRITERS: '0' }],
    ['SKEIN_NEO4J_NICE', { SKEIN_NEO4J_NICE: '20' }],
    ['SKEIN_NEO4J_NICE', { SKEIN_NEO4J_NICE: '-5' }],
  ])('when %s is bad (%j), then a ConfigError names it', (variable, env) => {
    expect(configErrorOf(env).message).toContain(variable);
  });

  it('when several values are bad, then the error names each of them', () => {
    const message = configErrorOf({ PORT: 'abc', REDIS_URL: 'http://x' }).message;
    expect(message).toContain('PORT');
    expect(message).toContain('REDIS_URL');
  });

  it('when NEO4J_URI is set without NEO4J_PASSWORD, then a ConfigError names NEO4J_PASSWORD', () => {
    expect(configErrorOf({ NEO4J_URI: 'bolt://localhost:7687' }).message).toContain('NEO4J_PASSWORD');
  });

  it('when SKEIN_ADMIN_TAG is set without SKEIN_ADMIN_PASSWORD, then a ConfigError names the password', () => {
    expect(configErrorOf({ SKEIN_ADMIN_TAG: 'root' }).message).toContain('SKEIN_ADMIN_PASSWORD');
  });

  it('when SKEIN_ADMIN_PASSWORD is set without SKEIN_ADMIN_TAG, then a ConfigError names the tag', () => {
    expect(configErrorOf({ SKEIN_ADMIN_PASSWORD: 'an-admin-passphrase' }).message).toContain(
      'SKEIN_ADMIN_TAG',
    );
  });
});

describe('loadConfig secure cookies', () => {
  it('when PUBLIC_URL is https, then cookies are Secure and the trailing slash is dropped', () => {
    const config = loadConfig({ PUBLIC_URL: 'https://chat.example.com/' });
    expect(config.secureCookies).toBe(true);
    expect(config.publicUrl).toBe('https://chat.example.com');
  });

  it('when PUBLIC_URL is http or unset, then cookies are not Secure', () => {
    expect(loadConfig({ PUBLIC_URL: 'http://chat.example.com' }).secureCookies).toBe(false);
    expect(loadConfig({}).secureCookies).toBe(false);
  });
});

describe('loadConfig SMS through Twilio', () => {
  const ACCOUNT = `AC${'0a'.repeat(16)}`;
  const SERVICE = `MG${'0b'.repeat(16)}`;
  const twilio = (env: Record<string, string>) => ({
    SKEIN_SMS_TRANSPORT: 'twilio',
    TWILIO_ACCOUNT_SID: ACCOUNT,
    TWILIO_AUTH_TOKEN: 'an-auth-token',
    ...env,
  });

  it('when nothing is set, then SMS stays on the log transport without Twilio settings', () => {
    const config = loadConfig({});
    expect(config.messaging.smsTransport).toBe('log');
    expect(config.messaging.twilio).toBeUndefined();
  });

  it('when the credentials and a From number are set, then they are used with the default API address', () => {
    const config = loadConfig(twilio({ TWILIO_FROM: '+15017122661' }));
    expect(config.messaging.smsTransport).toBe('twilio');
    expect(config.messaging.twilio).toEqual({
      apiUrl: 'https://api.twilio.com',
      accountSid: ACCOUNT,
      authToken: 'an-auth-token',
      sender: { from: '+15017122661' },
    });
  });

  it('when a Messaging Service and an API address are set, then they are used (trailing slash dropped)', () => {
    const config = loadConfig(
      twilio({ TWILIO_MESSAGING_SERVICE_SID: SERVICE, SKEIN_TWILIO_API_URL: 'http://127.0.0.1:4010/' }),
    );
    expect(config.messaging.twilio).toMatchObject({
      apiUrl: 'http://127.0.0.1:4010',
      sender: { messagingServiceSid: SERVICE },
    });
  });

  it.each([
    ['TWILIO_ACCOUNT_SID', { TWILIO_ACCOUNT_SID: '' }],
    ['TWILIO_AUTH_TOKEN', { TWILIO_AUTH_TOKEN: '' }],
  ])('when %s is missing, then a ConfigError names it', (variable, env) => {
    const message = configErrorOf(twilio({ TWILIO_FROM: '+15017122661', ...env })).message;
    expect(message).toContain(`${variable} is required with SKEIN_SMS_TRANSPORT=twilio`);
  });

  it('when both credentials are missing, then a ConfigError names both', () => {
    expect(configErrorOf({ SKEIN_SMS_TRANSPORT: 'twilio', TWILIO_FROM: '+15017122661' }).message).toContain(
      'TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN are required',
    );
  });

  it('when neither or both of TWILIO_FROM and TWILIO_MESSAGING_SERVICE_SID are set, then a ConfigError says so', () => {
    expect(configErrorOf(twilio({})).message).toContain(
      'exactly one of TWILIO_FROM and TWILIO_MESSAGING_SERVICE_SID (neither is set)',
    );
    expect(
      configErrorOf(twilio({ TWILIO_FROM: '+15017122661', TWILIO_MESSAGING_SERVICE_SID: SERVICE })).message,
    ).toContain('exactly one of TWILIO_FROM and TWILIO_MESSAGING_SERVICE_SID (both are set)');
  });

  it.each([
    ['TWILIO_ACCOUNT_SID', { TWILIO_ACCOUNT_SID: 'an-auth-token-pasted-here' }],
    ['TWILIO_FROM', { TWILIO_FROM: '555-0100' }],
    ['TWILIO_MESSAGING_SERVICE_SID', { TWILIO_MESSAGING_SERVICE_SID: ACCOUNT }],
    ['SKEIN_TWILIO_API_URL', { SKEIN_TWILIO_API_URL: 'http://api.twilio.com' }],
    ['SKEIN_SMS_TRANSPORT', { SKEIN_SMS_TRANSPORT: 'carrier-pigeon' }],
  ])('when %s is bad (%j), then a ConfigError names it', (variable, env) => {
    expect(configErrorOf(twilio({ TWILIO_FROM: '+15017122661', ...env })).message).toContain(variable);
  });

  it('when the auth token is set, then no ConfigError repeats it', () => {
    const message = configErrorOf(twilio({ TWILIO_AUTH_TOKEN: 'sekrit-token-value' })).message;
    expect(message).not.toContain('sekrit-token-value');
  });
});

describe('SKEIN_EVENT_MAX_BYTES', () => {
  it('when unset, then an event may carry 256 KiB; set, its value, never more than half a socket’s buffer', () => {
    expect(loadConfig({}).realtime.eventMaxBytes).toBe(256 * 1024);
    expect(loadConfig({ SKEIN_EVENT_MAX_BYTES: '65536' }).realtime.eventMaxBytes).toBe(65536);
    expect(
      loadConfig({ SKEIN_EVENT_MAX_BYTES: '4194304', SKEIN_WS_MAX_BUFFERED_BYTES: '2097152' }).realtime
        .eventMaxBytes,
    ).toBe(1048576);
  });

  it('when it is below 16 KiB or not a number, then a ConfigError names it', () => {
    expect(configErrorOf({ SKEIN_EVENT_MAX_BYTES: '1000' }).message).toContain('SKEIN_EVENT_MAX_BYTES');
    expect(configErrorOf({ SKEIN_EVENT_MAX_BYTES: 'lots' }).message).toContain('SKEIN_EVENT_MAX_BYTES');
  });
});
