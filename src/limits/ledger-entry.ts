/**
 * The credit ledger's entries: one per grant and one per charge, written in the same atomic
 * step that moves the balance (docs/credits.md, "The ledger"). A charge is written when its
 * reservation becomes final (commit, or settle at the final price); a reservation that is
 * refunded, by the request's failure or by the orphan sweep, charged nothing and writes
 * nothing. So, for every user, at every instant:
 *
 *   balance + credits of open reservations = sum of the user's entries' `credits`
 *
 * which is what `npm run ledger -- verify` checks and `rebuild` restores.
 *
 *   { id: 'charge:3f1c…', kind: 'charge', userId: 'user-1', credits: -1, at: '2026-11-29T12:00:00.123Z',
 *     operation: 'POST /corporates/search', keyId: 'k_9a…', requestId: 'req-…' }
 *   { id: 'grant:77aa…', kind: 'grant', userId: 'user-1', credits: 500, at: '…' }
 *
 * Entries wait in the store's tail (a Redis stream, or the single-process file) until they
 * are filed into the engine's `credit-ledger` index (./ledger-filing.ts), under their `id`,
 * so filing one twice leaves one document.
 */

/** What a charge is for, kept on its reservation until the charge is final. */
export interface ChargeTag {
  /** The operation as the catalogue writes it: `POST /corporates/search`, `POST /jobs/export`. */
  operation: string;
  /** The API key's public id. */
  keyId?: string;
  /** The request's X-Request-Id (what the caller saw in the response's header). */
  requestId?: string;
  /** A match job's id, for its charges (made by the worker, per chunk of rows). */
  matchJobId?: string;
}

export type LedgerEntryKind = 'grant' | 'charge' | 'opening';

export interface LedgerEntry extends Partial<ChargeTag> {
  /** `charge:<reservation id>`, `grant:<uuid>`, `opening:<user>`: unique, the engine's `_id`. */
  id: string;
  kind: LedgerEntryKind;
  userId: string;
  /** Signed: a grant adds (a negative grant takes back), a charge takes away (or is 0). */
  credits: number;
  /** ISO 8601, the store's clock when the balance moved. */
  at: string;
  /** Rows charged for: records sent by an export, rows of a match job's chunk. */
  rows?: number;
  /** A settlement's reservation: `-credits` of it was charged, the rest given back. */
  reserved?: number;
}

/** An entry not yet filed, with its place in the store's tail. */
export interface TailEntry {
  tailId: string;
  /** Undefined: unreadable (this code never writes one); filing drops it with an error log. */
  entry: LedgerEntry | undefined;
}

/** The tag as kept in a reservation (one string field). */
export function encodeTag(tag: ChargeTag | undefined): string {
  return tag ? JSON.stringify(tag) : '';
}

function decodeTag(text: string | undefined): Partial<ChargeTag> {
  if (!text) return {};
  try {
    const tag = JSON.parse(text) as Partial<ChargeTag>;
    const out: Partial<ChargeTag> = {};
    if (typeof tag.operation === 'string') out.operation = tag.operation;
    if (typeof tag.keyId === 'string') out.keyId = tag.keyId;
    if (typeof tag.requestId === 'string') out.requestId = tag.requestId;
    if (typeof tag.matchJobId === 'string') out.matchJobId = tag.matchJobId;
    return out;
  } catch {
    return {};
  }
}

const kinds = new Set<string>(['grant', 'charge', 'opening']);

/**
 * An entry from the flat field list the Redis scripts write (`id`, `kind`, `user`, `credits`,
 * `at` in ms, `tag`, `rows`); undefined for a malformed one (never written by this code).
 */
export function entryFromFields(fields: string[]): LedgerEntry | undefined {
  const get = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) get.set(fields[i] as string, fields[i + 1] as string);
  const id = get.get('id');
  const kind = get.get('kind');
  const userId = get.get('user');
  const credits = Number(get.get('credits'));
  const at = Number(get.get('at'));
  if (!id || !kind || !kinds.has(kind) || !userId || !Number.isInteger(credits) || !Number.isFinite(at))
    return undefined;
  const entry: LedgerEntry = {
    id,
    kind: kind as LedgerEntryKind,
    userId,
    credits,
    at: new Date(at).toISOString(),
    ...decodeTag(get.get('tag')),
  };
  const rows = get.get('rows');
  if (rows !== undefined && rows !== '') entry.rows = Number(rows);
  const reserved = get.get('reserved');
  if (reserved !== undefined && reserved !== '') entry.reserved = Number(reserved);
  return entry;
}
