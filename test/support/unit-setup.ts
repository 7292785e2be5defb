/**
 * The unit tier's global setup (vitest.unit.config.ts): no server. It draws or takes the run's
 * fast-check seed as the full suite's setup does (./global-setup.ts), and hands out server
 * addresses that cannot resolve (`.invalid`, RFC 2606), so a unit test that reaches for
 * OpenSearch or Redis fails at once with the reason in its error (ENOTFOUND
 * no-server-in-the-unit-tier.invalid) instead of finding some other server on this machine.
 */
import type { TestProject } from 'vitest/node';
import { runSeed } from './fc-seed.js';

export const noServer = 'no-server-in-the-unit-tier.invalid';

export default function setup(project: TestProject): void {
  const fcSeed = runSeed(process.env.FC_SEED);
  project.provide('opensearchUrl', `http://${noServer}:9200`);
  project.provide('redisUrl', `redis://${noServer}:6379`);
  project.provide('fcSeed', fcSeed);
  console.log(`[fast-check] seed ${fcSeed} for this run (replay: FC_SEED=${fcSeed})`);
}
