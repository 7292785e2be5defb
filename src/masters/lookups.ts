/**
 * Name lookups built from the versioned master files in data/masters/: the indexer's transform
 * names ids with them (indexer/masters.ts adds the replacement of a list by a `master` source
 * record), and the sample-data generator (sample-data/) draws ids from the same lists.
 */
import { type MasterName, masterNames, readMasterFile } from './masters.js';

export type { MasterName };

export interface MasterItem {
  id?: number;
  code?: string;
  name: string;
  exchangeCode?: string;
  subCategories?: Array<{ id: number; name: string }>;
  [key: string]: unknown;
}

export interface Market {
  code: string;
  exchangeCode: string | null;
  name: string | null;
}

export interface Masters {
  lists: Record<MasterName, MasterItem[]>;
  prefecture: Map<number, string>;
  /** Major and minor ids live in one map per master: the id schemes do not overlap. */
  industry: Map<number, string>;
  industrySub: Map<number, string>;
  business: Map<number, string>;
  businessSub: Map<number, string>;
  jobCategory: Map<number, string>;
  jobSubCategory: Map<number, string>;
  /** minor id -> its major id, per master with subcategories */
  parentOf: Record<'industries' | 'business-types' | 'job-categories', Map<number, number>>;
  media: Map<number, string>;
  employmentType: Map<number, string>;
  market: Map<string, Market>;
}

function byId(items: MasterItem[]): Map<number, string> {
  return new Map(
    items.filter((item) => typeof item.id === 'number').map((item) => [item.id as number, item.name]),
  );
}

function parents(items: MasterItem[]): Map<number, number> {
  return new Map(
    items.flatMap((item) => (item.subCategories ?? []).map((sub) => [sub.id, item.id as number] as const)),
  );
}

function subById(items: MasterItem[]): Map<number, string> {
  return new Map(
    items.flatMap((item) => (item.subCategories ?? []).map((sub) => [sub.id, sub.name] as const)),
  );
}

export function buildMasters(lists: Record<MasterName, MasterItem[]>): Masters {
  return {
    lists,
    prefecture: byId(lists.prefectures),
    industry: byId(lists.industries),
    industrySub: subById(lists.industries),
    business: byId(lists['business-types']),
    businessSub: subById(lists['business-types']),
    jobCategory: byId(lists['job-categories']),
    jobSubCategory: subById(lists['job-categories']),
    parentOf: {
      industries: parents(lists.industries),
      'business-types': parents(lists['business-types']),
      'job-categories': parents(lists['job-categories']),
    },
    media: byId(lists.media),
    employmentType: byId(lists['employment-types']),
    market: new Map(
      lists.markets
        .filter((item) => typeof item.code === 'string')
        .map((item) => [
          item.code as string,
          { code: item.code as string, exchangeCode: item.exchangeCode ?? null, name: item.name ?? null },
        ]),
    ),
  };
}

let cached: Masters | undefined;

/** The masters as released in data/masters (read once per process). */
export function loadMasters(): Masters {
  cached ??= buildMasters(
    Object.fromEntries(
      masterNames.map((name) => [name, readMasterFile(name).items as MasterItem[]]),
    ) as Record<MasterName, MasterItem[]>,
  );
  return cached;
}
