import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogLevel } from './config.js';

/** Paths never written to a log line: the API key, in any casing a header may arrive in. */
export const redactedPaths = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'headers["x-api-key"]',
  'apiKey',
  '*.apiKey',
];

export interface LoggerOptions {
  /**
   * stdout's lines gathered into writes of about 4 kB (the API's request log: a line per
   * request), rather than a write per line; see `gatheredLines`.
   */
  gathered?: boolean;
}

/**
 * JSON lines (one object per line, for a log collector), or pino-pretty's readable lines when
 * stdout is a terminal and no destination is given. Redaction happens before either.
 */
export function createLogger(
  level: LogLevel,
  destination?: pino.DestinationStream,
  options: LoggerOptions = {},
): Logger {
  const settings = { level, redact: { paths: redactedPaths, censor: '[redacted]' } };
  if (!destination && process.stdout.isTTY) {
    return pino(settings, pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', sync: true }));
  }
  return pino(settings, destination ?? (options.gathered ? gatheredLines() : undefined));
}

/** How long a line may wait for others before it is written anyway. */
export const gatherMs = 250;

/**
 * stdout (or `dest`, a file descriptor or a file), written asynchronously in writes of at least 4 kB, and at least every `gatherMs`
 * (an idle process's lines still go out at once, in a person's terms). Each write to a pipe
 * is a system call on libuv's thread pool and a callback on the main thread; gathered, a
 * dozen request lines share one. The lines still held are written by `endLogs` at a stop,
 * and by pino's exit hook on any other exit (`process.exit`, an uncaught exception); a
 * SIGKILL loses at most `gatherMs` of lines. Figures: docs/bench.md, "The request's own
 * bookkeeping".
 */
export function gatheredLines(dest: number | string = 1): pino.DestinationStream {
  return pino.destination({ dest, sync: false, minLength: 4096, periodicFlush: gatherMs });
}

/**
 * Writes out what the logger still holds and closes its output: the last step before
 * `process.exit`. pino writes stdout asynchronously; exiting while a line is still being
 * written put the `stopped` line before `stopping`. Bounded, so a stuck output cannot hold
 * the exit.
 */
export function endLogs(logger: Logger, timeoutMs = 2000): Promise<void> {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as
    | { end?: () => void; once?: (event: string, listener: () => void) => void; destroyed?: boolean }
    | undefined;
  if (!stream?.end || !stream.once || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    stream.once?.('close', () => {
      clearTimeout(timer);
      resolve();
    });
    stream.end?.();
  });
}
