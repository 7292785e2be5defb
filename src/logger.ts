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

/**
 * JSON lines (one object per line, for a log collector), or pino-pretty's readable lines when
 * stdout is a terminal and no destination is given. Redaction happens before either.
 */
export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  const options = { level, redact: { paths: redactedPaths, censor: '[redacted]' } };
  if (!destination && process.stdout.isTTY) {
    return pino(options, pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', sync: true }));
  }
  return pino(options, destination);
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
