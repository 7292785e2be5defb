/**
 * The kinds of value a setting can hold (src/config/settings.ts): how its text is parsed and
 * checked, how the settings reference names it, and how `--print-config` masks it. A kind
 * refuses a value by throwing `Refusal` with the rest of the one-line message ("must be ...");
 * the loader puts the variable's name in front.
 */
import { sentinelTarget } from './redis-url.js';

/** A setting's text that cannot be used; `reason` follows the variable's name. */
export class Refusal extends Error {}

/** A start-up setting that cannot be used; its message is the one line to print. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface Kind<T> {
  /** Names the kind in the test that gives each one a bad value (test/config/settings.test.ts). */
  readonly id: string;
  /** What the settings reference says the variable accepts. */
  readonly accepts: string;
  /** An empty variable counts as unset (the way a compose file's `FOO=` is meant). */
  readonly emptyIsUnset: boolean;
  parse(text: string): T;
  /** How `--print-config` shows a value of this kind that may hold a secret. */
  mask?(value: T): unknown;
  /** What part of the value is secret, for the settings reference (a URL's user and password). */
  readonly secretPart?: string;
}

function kind<T>(spec: Omit<Kind<T>, 'emptyIsUnset'> & { emptyIsUnset?: boolean }): Kind<T> {
  return { emptyIsUnset: true, ...spec };
}

/** Any text; empty counts as unset. */
export const text = kind<string>({ id: 'text', accepts: 'text', parse: (value) => value });

/** Any text, the empty one included: an empty prefix is a real choice. */
export const verbatimText = kind<string>({
  id: 'verbatimText',
  accepts: 'text (empty is a value)',
  emptyIsUnset: false,
  parse: (value) => value,
});

/** A whole number in [min, max]; `rule` is how the refusal and the reference say it. */
export function integer(
  min: number,
  max = Number.MAX_SAFE_INTEGER,
  rule = `a whole number of at least ${min}`,
) {
  return kind<number>({
    id: 'integer',
    accepts: rule,
    parse(value) {
      const parsed = Number(value);
      if (!Number.isInteger(parsed) || parsed < min || parsed > max)
        throw new Refusal(`must be ${rule}, got "${value}"`);
      return parsed;
    },
  });
}

export const flag = kind<boolean>({
  id: 'flag',
  accepts: '`true` or `false` (`1`, `0`)',
  parse(value) {
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    throw new Refusal(`must be true or false, got "${value}"`);
  },
});

export function oneOf<const T extends string>(choices: readonly T[]) {
  return kind<T>({
    id: 'oneOf',
    accepts: `one of ${choices.map((choice) => `\`${choice}\``).join(', ')}`,
    parse(value) {
      if (!(choices as readonly string[]).includes(value))
        throw new Refusal(`must be one of ${choices.join(', ')}, got "${value}"`);
      return value as T;
    },
  });
}

/** Text matching `pattern`; `rule` follows "must be" in a refusal. */
export function matching(pattern: RegExp, rule: string) {
  return kind<string>({
    id: 'matching',
    accepts: rule,
    parse(value) {
      if (!pattern.test(value)) throw new Refusal(`must be ${rule}, got "${value}"`);
      return value;
    },
  });
}

/** A URL's user and password become `***` (`redis://***:***@cache:6379`); the rest shows. */
function maskCredentials(value: string): string {
  try {
    const parsed = new URL(value);
    if (!parsed.username && !parsed.password) return value;
    if (parsed.username) parsed.username = '***';
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '***';
  }
}

function hasProtocol(value: string, protocols: readonly string[]): boolean {
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/**
 * REDIS_URL: `redis://` or `rediss://` (one server), or `redis-sentinel://host:port,.../<name>`
 * (the primary the Sentinels name: src/redis.ts); never repeated.
 */
export const redisUrl = kind<string>({
  id: 'redisUrl',
  accepts:
    'a URL starting `redis://` or `rediss://`, or `redis-sentinel://host:port[,host:port...]/<master name>`',
  secretPart: 'its user and password',
  mask: (value) =>
    value.startsWith('redis-sentinel:') ? value.replace(/\/\/[^@/]*@/, '//***:***@') : maskCredentials(value),
  parse(value) {
    if (value.startsWith('redis-sentinel:')) {
      try {
        sentinelTarget(value);
      } catch (error) {
        throw new Refusal(`must be ${(error as Error).message.replace(/^a redis-sentinel URL is /, '')}`);
      }
      return value;
    }
    if (!hasProtocol(value, ['redis:', 'rediss:']))
      throw new Refusal(
        'must be a URL starting redis:// or rediss://, or redis-sentinel://host:port,.../<master name>',
      );
    return value;
  },
});

/** One URL, or several separated by commas (the nodes of one cluster); never repeated. */
export function urlList(protocols: readonly string[]) {
  return kind<string>({
    id: 'urlList',
    accepts: `a URL starting ${protocols.map((protocol) => `\`${protocol}//\``).join(' or ')}, or several separated by commas`,
    secretPart: 'its user and password',
    mask: (value) => value.split(',').map(maskCredentials).join(','),
    parse(value) {
      const parts = value.split(',').map((part) => part.trim());
      if (!parts.every((part) => hasProtocol(part, protocols)))
        throw new Refusal(
          `must be a URL starting ${protocols.join(' or ')}//, or several separated by commas`,
        );
      return parts.join(',');
    },
  });
}

/** Ids separated by commas, blanks trimmed, empty entries dropped. */
export const idSet = kind<ReadonlySet<string>>({
  id: 'idSet',
  accepts: 'ids separated by commas',
  emptyIsUnset: false,
  parse: (value) =>
    new Set(
      value
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== ''),
    ),
});

/** A secret of at least `minLength` characters; a refusal never repeats it. */
export function secretText(minLength: number) {
  return kind<string>({
    id: 'secretText',
    accepts: `text of at least ${minLength} characters`,
    parse(value) {
      if (value.length < minLength) throw new Refusal(`must be at least ${minLength} characters`);
      return value;
    },
  });
}

export interface CursorKey {
  id: number;
  secret: string;
}

/** `<id>:<secret>,...`, ids 0-255 given once, secrets of at least 32 characters. */
export const cursorKeyList = kind<CursorKey[]>({
  id: 'cursorKeyList',
  accepts: '`<id>:<secret>` separated by commas, ids 0-255, secrets of at least 32 characters',
  // the ids show which keys a process holds (for a rotation), never the secrets
  mask: (keys) => keys.map(({ id }) => ({ id, secret: '***' })),
  parse(value) {
    const keys: CursorKey[] = [];
    for (const [index, entry] of value.split(',').entries()) {
      const colon = entry.indexOf(':');
      const id = Number(entry.slice(0, Math.max(colon, 0)).trim());
      const secret = entry.slice(colon + 1).trim();
      // never echo a secret back: name the entry by its place and its id
      if (colon < 1 || !Number.isInteger(id) || id < 0 || id > 255)
        throw new Refusal(`entry ${index + 1} must be <id>:<secret> with an id from 0 to 255`);
      if (secret.length < 32) throw new Refusal(`key ${id}: the secret must be at least 32 characters`);
      if (keys.some((key) => key.id === id)) throw new Refusal(`key id ${id} is given twice`);
      keys.push({ id, secret });
    }
    return keys;
  },
});
