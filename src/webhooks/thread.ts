/**
 * The webhook deliveries (./worker.ts: the dispatcher and the senders) on a thread of their
 * own, at a lower CPU priority (WEBHOOK_NICE, ./cpu-priority.ts), as `npm run worker` runs
 * them (indexer/bin/worker.ts): the indexer's thread and the engine keep the cores while a
 * batch is written and percolated, and the deliveries, whose target is a minute, take what is
 * left. One process still: a kill stops both, and BullMQ's stalled check hands the thread's
 * messages to the next worker as before. The thread opens its own Redis connections (a
 * connection cannot cross threads) and logs on the process's standard output.
 *
 *   const webhooks = await startWebhookThread({ redisUrl, redisPrefix, config, logLevel },
 *     (error) => stop(error))       // the thread stopped by itself: stop the process
 *   webhooks.priority               // { threadId, nice }, as the thread set it
 *   await webhooks.close()
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { LogLevel } from '../config.js';
import type { ThreadPriority } from './cpu-priority.js';
import type { WebhookConfig } from './worker.js';

export interface WebhookThreadOptions {
  /** REDIS_URL: the thread's store and queue connections */
  redisUrl: string;
  redisPrefix: string;
  config: WebhookConfig;
  logLevel: LogLevel;
}

/** What the thread tells the process (./thread-main.ts). */
export type ThreadReport = { ready: ThreadPriority | null } | { closed: true };

export interface WebhookThread {
  /** the thread's kernel id and its nice value once started; null where /proc lacks them */
  priority: ThreadPriority | null;
  /** Stops the dispatcher and lets the deliveries in flight finish, then ends the thread. */
  close(): Promise<void>;
}

/**
 * The thread: its script beside this file once built (.js); under tsx and the tests (.ts),
 * tsx's API loads the script inside the thread (the loader a process registers does not reach
 * its threads on Node 20).
 */
function newThread(options: WebhookThreadOptions): Worker {
  const here = fileURLToPath(import.meta.url);
  const extension = path.extname(here);
  const script = new URL(`./thread-main${extension}`, import.meta.url);
  if (extension !== '.ts') return new Worker(script, { workerData: options });
  // the API's ES module (its CommonJS twin cannot register the loader from a thread's eval)
  const tsxApi = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  );
  const load = `import(${JSON.stringify(tsxApi.href)}).then((api) => api.tsImport(${JSON.stringify(script.href)}, ${JSON.stringify(script.href)}))`;
  return new Worker(load, { eval: true, workerData: options });
}

/**
 * Starts the thread; resolves once its worker and dispatcher run. `onStopped` is called if the
 * thread ends without being asked (an error it did not survive): the deliveries stopped, and a
 * worker process without them should stop too so that its supervisor starts it again.
 */
export function startWebhookThread(
  options: WebhookThreadOptions,
  onStopped: (error: Error) => void,
): Promise<WebhookThread> {
  return new Promise((resolve, reject) => {
    const thread = newThread(options);
    let started = false;
    let ended = false;
    let closing: Promise<void> | undefined;
    let closed: (() => void) | undefined;
    thread.on('message', (report: ThreadReport) => {
      if ('ready' in report) {
        started = true;
        resolve({
          priority: report.ready,
          close() {
            // a thread that already ended (onStopped) has nothing left to close; a second call
            // waits for the first
            if (ended) return Promise.resolve();
            closing ??= new Promise<void>((done) => {
              closed = done;
              thread.postMessage('close');
            });
            return closing;
          },
        });
      } else closed?.();
    });
    const end = (error: Error) => {
      if (ended) return;
      ended = true;
      if (!started) reject(error);
      else if (!closing) onStopped(error);
      else closed?.();
    };
    thread.on('error', (error) => end(error));
    thread.on('exit', (code) => end(new Error(`the webhook thread ended (exit ${code})`)));
  });
}
