/**
 * The folder holding package.json, mappings/, data/ and schemas/, found by walking up from
 * this module: the same answer whether the code runs from src/ (tsx) or dist/src/ (built).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findProjectRoot(start: string): string {
  let dir = start;
  while (!existsSync(path.join(dir, 'package.json')) || !existsSync(path.join(dir, 'mappings'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no project folder (package.json beside mappings/) above ${start}`);
    dir = parent;
  }
  return dir;
}

export const projectRoot = findProjectRoot(path.dirname(fileURLToPath(import.meta.url)));
