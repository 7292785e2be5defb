/**
 * How a setting is declared (src/config/settings.ts holds the table) and what is derived from
 * the declarations: the values read from an environment, their place in the configuration
 * object and, at the type level, that object's type. Nothing here names a setting.
 */
import { ConfigError, type Kind, Refusal } from './kinds.js';

export interface Setting<
  N extends string = string,
  K extends string | undefined = string | undefined,
  T = unknown,
> {
  /** The environment variable. */
  readonly name: N;
  /**
   * Where the value lands in the configuration object, dotted (`limits.ratePerSecond`);
   * undefined: only a rule of src/config.ts reads it (credentials, the one-key cursor form).
   */
  readonly key: K;
  readonly kind: Kind<NonNullable<T>>;
  /** One or two sentences for the settings reference and `.env.example`. */
  readonly doc: string;
  /** The value never shows: not in `--print-config`, a refusal, a log line or the reference. */
  readonly secret: boolean;
  /** The text the variable is taken to hold when unset, parsed like a set one. */
  readonly default: string | undefined;
  /** What leaving it unset means, when no text says it (the reference's default column). */
  readonly unset: string | undefined;
  /** The value from the text, or from `default`/`fallback` when unset; throws `Refusal`. */
  read(text: string | undefined): T;
}

interface Declared<N extends string, K extends string | undefined, T> {
  name: N;
  key: K;
  kind: Kind<T>;
  doc: string;
  secret?: boolean;
}

function declare<N extends string, K extends string | undefined, T, V>(
  spec: Declared<N, K, T> & { default?: string; unset?: string },
  whenUnset: () => V,
): Setting<N, K, T | V> {
  const { kind } = spec;
  return {
    name: spec.name,
    key: spec.key,
    kind: kind as Kind<NonNullable<T | V>>,
    doc: spec.doc,
    secret: spec.secret ?? false,
    default: spec.default,
    unset: spec.unset,
    read(text) {
      const given = kind.emptyIsUnset && text === '' ? undefined : text;
      return given === undefined ? whenUnset() : kind.parse(given);
    },
  };
}

/** A setting with a default: the text unset means, parsed like a set value. */
export function setting<const N extends string, const K extends string | undefined, T>(
  spec: Declared<N, K, T> & { default: string },
): Setting<N, K, T> {
  return declare(spec, () => spec.kind.parse(spec.default));
}

/** A setting whose default is computed (a path under the project folder); `unset` says it. */
export function computed<const N extends string, const K extends string | undefined, T>(
  spec: Declared<N, K, T> & { unset: string; fallback: () => T },
): Setting<N, K, T> {
  return declare(spec, spec.fallback);
}

/** A setting that may stay unset; `unset` says what that means. */
export function optional<const N extends string, const K extends string | undefined, T>(
  spec: Declared<N, K, T> & { unset: string },
): Setting<N, K, T | undefined> {
  return declare(spec, () => undefined);
}

export interface Section<S extends readonly Setting[] = readonly Setting[]> {
  readonly title: string;
  readonly about: string;
  readonly settings: S;
}

export function section<const S extends readonly Setting[]>(
  title: string,
  about: string,
  settings: S,
): Section<S> {
  return { title, about, settings };
}

type ValueOf<S> = S extends Setting<string, string | undefined, infer T> ? T : never;

/** Every setting's value, by variable name. */
export type ValuesOf<S extends Setting> = { [E in S as E['name']]: ValueOf<E> };

/** `{ a: { b: T } }` from the key `a.b`. */
type Nest<K extends string, T> = K extends `${infer Head}.${infer Rest}`
  ? { [P in Head]: Nest<Rest, T> }
  : { [P in K]: T };

type UnionToIntersection<U> = (U extends unknown ? (part: U) => void : never) extends (part: infer I) => void
  ? I
  : never;

/** The configuration object's part the settings with a key make. */
export type PlacedBy<S extends Setting> = UnionToIntersection<
  S extends Setting<string, infer K, infer T> ? (K extends string ? Nest<K, T> : never) : never
>;

/** An intersection of nested objects as one plain object type (what an editor shows). */
export type Expand<T> = T extends ReadonlySet<unknown> | readonly unknown[] | ((...args: never[]) => unknown)
  ? T
  : T extends object
    ? { [P in keyof T]: Expand<T[P]> }
    : T;

/** Reads every setting from `env`; a `ConfigError` names every bad variable, in table order. */
export function readSettings<S extends Setting>(settings: readonly S[], env: NodeJS.ProcessEnv): ValuesOf<S> {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const setting of settings) {
    const text = env[setting.name];
    try {
      values[setting.name] = setting.read(text);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      problems.push(`${setting.name} ${withoutSecret(setting, error.message, text)}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems.join('; '));
  return values as ValuesOf<S>;
}

/** A kind's refusal of a secret setting must not repeat it; the guard if one ever did. */
function withoutSecret(setting: Setting, reason: string, text: string | undefined): string {
  return setting.secret && text ? reason.split(text).join('***') : reason;
}

/** The values of the settings with a key, nested as their keys say. */
export function placeSettings<S extends Setting>(settings: readonly S[], values: ValuesOf<S>): PlacedBy<S> {
  const placed: Record<string, unknown> = {};
  for (const setting of settings) {
    if (setting.key === undefined) continue;
    setIn(placed, setting.key, (values as Record<string, unknown>)[setting.name]);
  }
  return placed as PlacedBy<S>;
}

export function setIn(target: Record<string, unknown>, key: string, value: unknown): void {
  const path = key.split('.');
  let node = target;
  for (const part of path.slice(0, -1)) {
    node[part] ??= {};
    node = node[part] as Record<string, unknown>;
  }
  node[path[path.length - 1] as string] = value;
}

export function getIn(source: unknown, key: string): unknown {
  return key
    .split('.')
    .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], source);
}

/** Plain objects merged key by key, later parts winning; anything else is a value. */
export function mergeParts(...parts: object[]): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const part of parts) {
    for (const [key, value] of Object.entries(part)) {
      const current = merged[key];
      merged[key] = isPlainObject(current) && isPlainObject(value) ? mergeParts(current, value) : value;
    }
  }
  return merged;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}
