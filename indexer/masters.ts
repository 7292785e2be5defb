/**
 * Name lookups for the transform. The lookups themselves live in src/masters/lookups.ts (the
 * sample-data generator reads the same lists); what is the pipeline's own is that a `master`
 * source record replaces one list for the rest of a run (see schemas/README.md), so a new
 * medium can be named before the data files are released.
 */
import { buildMasters, type MasterItem, type MasterName, type Masters } from '../src/masters/lookups.js';

export {
  buildMasters,
  loadMasters,
  type Market,
  type MasterItem,
  type MasterName,
  type Masters,
} from '../src/masters/lookups.js';

/** A copy of `masters` with one list replaced (a `master` source record). */
export function withMasterList(masters: Masters, name: MasterName, items: MasterItem[]): Masters {
  return buildMasters({ ...masters.lists, [name]: items });
}
