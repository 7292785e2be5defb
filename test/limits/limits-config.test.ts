/** Rate-limit and credit settings from the environment (src/config.ts). */
import { describe, expect, it } from 'vitest';
import { loadLimitsConfig } from '../../src/config.js';

describe('loadLimitsConfig', () => {
  it('has the contract defaults with nothing set', () => {
    const config = loadLimitsConfig({});
    expect(config).toMatchObject({
      ratePerSecond: 5,
      searchCost: 1,
      detailCost: 0,
      idempotencyTtlSeconds: 86400,
    });
    expect([...config.rateLimitExemptUsers]).toEqual([]);
  });

  it('reads every setting', () => {
    const config = loadLimitsConfig({
      RATE_LIMIT_PER_SECOND: '50',
      RATE_LIMIT_EXEMPT_USERS: ' bench , load-test ,',
      SEARCH_CREDIT_COST: '2',
      DETAIL_CREDIT_COST: '1',
      IDEMPOTENCY_TTL_SECONDS: '60',
    });
    expect(config).toMatchObject({
      ratePerSecond: 50,
      searchCost: 2,
      detailCost: 1,
      idempotencyTtlSeconds: 60,
    });
    expect([...config.rateLimitExemptUsers]).toEqual(['bench', 'load-test']);
  });

  it.each([
    ['RATE_LIMIT_PER_SECOND', '0', /RATE_LIMIT_PER_SECOND must be a whole number of at least 1, got "0"/],
    ['SEARCH_CREDIT_COST', '-1', /SEARCH_CREDIT_COST must be a whole number of at least 0/],
    ['DETAIL_CREDIT_COST', '1.5', /DETAIL_CREDIT_COST must be a whole number/],
    ['IDEMPOTENCY_TTL_SECONDS', 'day', /IDEMPOTENCY_TTL_SECONDS must be a whole number/],
  ])('refuses %s=%s at start-up', (name, value, message) => {
    expect(() => loadLimitsConfig({ [name]: value })).toThrow(message);
  });
});
