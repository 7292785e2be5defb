/**
 * A V8 CPU profile (`node --cpu-prof`) summed by where the time was spent: self time per
 * package (node_modules/<name>), per project file (src/..., relative), per Node internal
 * (node:...), per native function (`native writev`), and V8's own entries ((garbage
 * collector), (program), (idle)). The report of
 * bench/api-step.ts carries it for the "after" process, so each step shows where the rest of
 * a search's CPU goes.
 *
 *   summariseProfile('/tmp/prof/CPU.2026....cpuprofile', 12)
 *   -> { totalMs: 9123, busyMs: 6020, top: [{ where: 'node:internal/...', ms: 900, share: 0.15 }, ...] }
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** All sampled time, idle included, ms. */
  totalMs: number;
  /** Sampled time not idle, ms: what `share` is a share of. */
  busyMs: number;
  top: Array<{ where: string; ms: number; share: number }>;
}

/** Where a frame's code lives, at the grain the summary sums by. */
export function placeOf(url: string, functionName: string): string {
  // V8's entries by their own names; a native function by its name (writev, JSON.parse, ...)
  if (url === '')
    return functionName.startsWith('(') ? functionName : `native ${functionName || '(anonymous)'}`;
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return (rest[0] ?? '').startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  const src = url.search(/\/(src|bench|indexer)\//);
  return src >= 0 ? url.slice(src + 1) : url;
}

export function summariseProfile(file: string, topN = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const placeById = new Map(
    profile.nodes.map((node) => [node.id, placeOf(node.callFrame.url, node.callFrame.functionName)]),
  );
  const byPlace = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const place = placeById.get(id) ?? '(unknown)';
    byPlace.set(place, (byPlace.get(place) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const totalUs = [...byPlace.values()].reduce((sum, us) => sum + us, 0);
  const busyUs = totalUs - (byPlace.get('(idle)') ?? 0);
  const top = [...byPlace]
    .filter(([place]) => place !== '(idle)')
    .sort((a, b) => b[1] - a[1])
    .slice(0, topN)
    .map(([where, us]) => ({
      where,
      ms: Math.round(us / 1000),
      share: Math.round((us / busyUs) * 1000) / 1000,
    }));
  return { totalMs: Math.round(totalUs / 1000), busyMs: Math.round(busyUs / 1000), top };
}

/**
 * The largest `.cpuprofile` in `dir`: a process run with `--import tsx` writes one per thread
 * (the loader's thread too), and the request path's is the one with the most samples.
 */
export function largestProfile(dir: string): string | undefined {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => path.join(dir, name));
  return files.sort((a, b) => statSync(b).size - statSync(a).size)[0];
}
