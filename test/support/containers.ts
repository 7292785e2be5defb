/**
 * Test servers in containers (testcontainers), used by the global setup when a Docker engine
 * answers: the official OpenSearch 3.x image and Redis 7, as in docker-compose.yml. Machines
 * without an engine (these dev machines and CI) use the local node and redis-server instead;
 * TEST_SERVERS=local|containers overrides the choice.
 */
import { spawnSync } from 'node:child_process';

export interface TestServer {
  url: string;
  stop(): Promise<void>;
}

export function dockerEngineAnswers(): boolean {
  if (process.env.TEST_SERVERS === 'local') return false;
  if (process.env.TEST_SERVERS === 'containers') return true;
  return spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
}

export async function startOpenSearchContainer(): Promise<TestServer> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer('opensearchproject/opensearch:3.3.2')
    .withEnvironment({
      'discovery.type': 'single-node',
      DISABLE_SECURITY_PLUGIN: 'true',
      DISABLE_INSTALL_DEMO_CONFIG: 'true',
      OPENSEARCH_JAVA_OPTS: '-Xms1g -Xmx1g',
    })
    .withExposedPorts(9200)
    .withWaitStrategy(
      Wait.forHttp('/_cluster/health?wait_for_status=yellow&timeout=1s', 9200).forStatusCode(200),
    )
    .withStartupTimeout(180_000)
    .start();
  return {
    url: `http://${container.getHost()}:${container.getMappedPort(9200)}`,
    stop: async () => {
      await container.stop();
    },
  };
}

export async function startRedisContainer(): Promise<TestServer> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer('redis:7-alpine')
    .withExposedPorts(6379)
    .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
    .start();
  return {
    url: `redis://${container.getHost()}:${container.getMappedPort(6379)}`,
    stop: async () => {
      await container.stop();
    },
  };
}
