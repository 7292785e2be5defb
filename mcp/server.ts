/**
 * The MCP server: the API's tools for an AI assistant, each a call of the running HTTP API
 * through the typed client (client/src) with the user's API key, so a tool call is rate
 * limited and charged exactly as the same request sent to the API. It holds no data and
 * talks to nothing but the API.
 *
 * Parameters are listed with their full schemas (mcp/contract.ts, mcp/filters.ts) but checked
 * by the API alone: the server passes the arguments on as the request, so a refusal is the
 * API's own (the same code, message and field), never a second opinion that could disagree.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { CorpsearchClient } from '../client/src/index.js';
import type { JsonSchema } from './contract.js';
import { otherTools } from './other-tools.js';
import { failure, success } from './results.js';
import { savedSearchTools } from './saved-search-tools.js';
import { searchTools } from './search-tools.js';
import type { ToolSpec } from './tool-spec.js';
import { usageTools } from './usage-tools.js';
import { webhookTools } from './webhook-tools.js';

export const serverInfo = { name: 'corpsearch', version: '0.1.0' };

/** Every tool, in the order an assistant lists them. */
export function toolSpecs(): ToolSpec[] {
  return [...searchTools(), ...otherTools, ...savedSearchTools, ...webhookTools, ...usageTools];
}

/**
 * A tool's input: any object, passed on as the request, listed as `spec.properties`. A
 * parameter is `unknown` to the SDK's check, its JSON Schema attached for the listing.
 */
function inputSchema(spec: ToolSpec) {
  const shape = Object.fromEntries(
    Object.entries(spec.properties).map(([name, schema]) => [name, z.unknown().optional().meta(schema)]),
  );
  const listed: JsonSchema = {
    additionalProperties: false,
    ...(spec.required ? { required: spec.required } : {}),
  };
  return z.looseObject(shape).meta(listed);
}

/** Drops what the API would read as a value: an argument sent as undefined. */
function requestOf(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined));
}

export function createMcpServer(api: CorpsearchClient, baseUrl: string): McpServer {
  const server = new McpServer(serverInfo);
  for (const spec of toolSpecs()) {
    server.registerTool(
      spec.name,
      {
        title: spec.title,
        description: spec.description,
        inputSchema: inputSchema(spec),
        annotations: { readOnlyHint: spec.readOnly ?? true, openWorldHint: false, title: spec.title },
      },
      async (args: Record<string, unknown>) => {
        try {
          const { summary, body, meta } = await spec.run(api, requestOf(args));
          return success(summary, body, meta);
        } catch (error) {
          return failure(error, baseUrl);
        }
      },
    );
  }
  return server;
}
