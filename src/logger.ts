import pino, { type Logger } from 'pino';
import type { LogLevel } from './config.js';

/** Paths never written to a log line: the API key, in any casing a header may arrive in. */
export const redactedPaths = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'headers["x-api-key"]',
  'apiKey',
  '*.apiKey',
];

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: redactedPaths, censor: '[redacted]' } }, destination);
}
