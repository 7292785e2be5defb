/**
 * REDIS_URL's two forms (src/config/redis-url.ts, the setting's kind in src/config/kinds.ts):
 * one server, or the Sentinels of a primary; a broken form is refused without repeating the
 * value, and `--print-config` masks a password in either.
 */
import { describe, expect, it } from 'vitest';
import { redisUrl } from '../../src/config/kinds.js';
import { sentinelTarget } from '../../src/config/redis-url.js';

describe('REDIS_URL', () => {
  it('reads the Sentinels, the master name and the credentials of a redis-sentinel URL', () => {
    expect(sentinelTarget('redis-sentinel://127.0.0.1:26379,127.0.0.1:26380,[::1]:26381/corpsearch')).toEqual(
      {
        sentinels: [
          { host: '127.0.0.1', port: 26379 },
          { host: '127.0.0.1', port: 26380 },
          { host: '::1', port: 26381 },
        ],
        name: 'corpsearch',
      },
    );
    expect(sentinelTarget('redis-sentinel://api:p%40ss@sentinel-a:26379/cs')).toEqual({
      sentinels: [{ host: 'sentinel-a', port: 26379 }],
      name: 'cs',
      username: 'api',
      password: 'p@ss',
    });
    expect(sentinelTarget('redis://127.0.0.1:6379')).toBeUndefined();
  });

  it.each([
    'redis-sentinel://127.0.0.1:26379',
    'redis-sentinel://127.0.0.1/corpsearch',
    'redis-sentinel://127.0.0.1:99999/corpsearch',
    'redis-sentinel://:secret-pw@127.0.0.1:x/corpsearch',
  ])('refuses %s, naming the form and never the value', (value) => {
    expect(() => redisUrl.parse(value)).toThrow(/redis-sentinel:\/\/|host:port/);
    try {
      redisUrl.parse(value);
    } catch (error) {
      expect((error as Error).message).not.toContain('secret-pw');
    }
  });

  it('takes a server URL, refuses another scheme, masks passwords in both forms', () => {
    expect(redisUrl.parse('redis://cache:6379')).toBe('redis://cache:6379');
    expect(() => redisUrl.parse('http://cache:6379')).toThrow(/redis:\/\//);
    expect(redisUrl.mask?.('redis-sentinel://api:hunter2@s1:26379,s2:26379/cs')).toBe(
      'redis-sentinel://***:***@s1:26379,s2:26379/cs',
    );
    expect(String(redisUrl.mask?.('redis://default:hunter2@cache:6379'))).not.toContain('hunter2');
  });
});
