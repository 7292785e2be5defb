/**
 * `npm run webhooks -- <command>`: the webhook dead letters, in the queue the worker uses under
 * the same environment (Redis at REDIS_URL under REDIS_PREFIX; docs/webhooks.md, "Operators").
 *
 *   npm run webhooks -- dead-letters [--webhook wh_…]    one line of JSON per dead letter
 *   npm run webhooks -- replay [--webhook wh_…] [message ids…]   queue them again
 *
 * `replay` without ids replays every dead letter (of the webhook, with --webhook).
 */

import { createQueueConnection } from '../indexer/queue.js';
import { cliProgram, exitCodesHelp, runCli } from '../ops/cli.js';
import { loadConfigOrExit } from '../src/config.js';
import { listDeadLetters, replayDeadLetters } from '../src/webhooks/dead-letters.js';
import { webhookQueue } from '../src/webhooks/queue.js';
import { retryScheduleOf } from '../src/webhooks/worker.js';

async function withQueue<T>(work: (queue: ReturnType<typeof webhookQueue>) => Promise<T>): Promise<T> {
  const config = loadConfigOrExit();
  if (!config.redisUrl) throw new Error('the webhook queue lives in Redis: set REDIS_URL');
  const connection = createQueueConnection(config.redisUrl);
  const queue = webhookQueue(connection, config.redisPrefix, retryScheduleOf(config.webhooks));
  try {
    return await work(queue);
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

const program = cliProgram('webhooks', 'The webhook dead letters: list them, replay them.');
program
  .command('dead-letters')
  .addHelpText('after', exitCodesHelp)
  .description('List the deliveries that failed every attempt, oldest first (JSON lines on stdout).')
  .option('--webhook <id>', 'only this webhook')
  .action((options: { webhook?: string }) =>
    runCli('webhooks', async () => {
      const letters = await withQueue((queue) =>
        listDeadLetters(queue, options.webhook ? { webhookId: options.webhook } : {}),
      );
      for (const letter of letters) process.stdout.write(`${JSON.stringify(letter)}\n`);
      process.stderr.write(`${letters.length} dead letter(s)\n`);
    }),
  );
program
  .command('replay')
  .addHelpText('after', exitCodesHelp)
  .description(
    "Queue dead letters again (all, one webhook's, or the message ids given); each starts its retries anew.",
  )
  .option('--webhook <id>', 'only this webhook')
  .argument('[messageIds...]', 'message ids as dead-letters lists them')
  .action((messageIds: string[], options: { webhook?: string }) =>
    runCli('webhooks', async () => {
      const count = await withQueue((queue) =>
        replayDeadLetters(queue, {
          ...(options.webhook ? { webhookId: options.webhook } : {}),
          ...(messageIds.length > 0 ? { messageIds } : {}),
        }),
      );
      process.stderr.write(`replayed ${count} dead letter(s)\n`);
    }),
  );
program.parse();
