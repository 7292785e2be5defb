/**
 * `npm run gen:settings`: writes docs/settings.md (the settings reference) and `.env.example`
 * from the settings table, src/config/settings.ts. test/config/settings.test.ts fails when a committed
 * one differs from a fresh run, so no setting can change without its documentation.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { generatedFiles } from '../src/config/reference.js';
import { projectRoot } from '../src/project-root.js';

for (const [file, text] of Object.entries(generatedFiles())) {
  writeFileSync(path.join(projectRoot, file), text);
  console.log(`wrote ${file}`);
}
