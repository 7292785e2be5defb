/** One tool as the server registers it: its listing and what a call does through the API client. */
import type { CorpsearchClient, ResponseMeta } from '../client/src/index.js';
import type { JsonSchema } from './contract.js';
import type { Body } from './results.js';

export interface ToolSpec {
  name: string;
  title: string;
  /** What it does, for a model choosing a tool, ending with what it costs. */
  description: string;
  /** JSON Schema of each parameter, as listed to the assistant. */
  properties: Record<string, JsonSchema>;
  required?: string[];
  /** false for a tool that changes something (saves or deletes); every other tool only reads. */
  readOnly?: false;
  run(api: CorpsearchClient, args: Body): Promise<{ summary: string; body: Body; meta?: ResponseMeta }>;
}
