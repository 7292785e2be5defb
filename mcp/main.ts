/**
 * `npm run mcp`: the MCP server for AI assistants, over stdio (the default: a desktop
 * assistant starts it as a child process) or, with `--http`, streamable HTTP on
 * 127.0.0.1 (docs/mcp.md). The API comes from API_URL (default http://127.0.0.1:8080), the
 * key from API_KEY_FILE or API_KEY, as for `npm run match`: never an option, so it stays
 * out of `ps` and shell history. stdout belongs to the protocol; messages go to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createCorpsearchClient } from '../client/src/index.js';
import { apiKeyFromEnvironment, cliProgram, runCli, wholeNumber } from '../ops/cli.js';
import { serveHttp } from './http.js';
import { createMcpServer } from './server.js';

interface Options {
  http?: boolean;
  port: number;
  host: string;
}

export const defaultMcpPort = 8765;

async function main(): Promise<void> {
  const program = cliProgram(
    'mcp',
    'The corpsearch API as tools for AI assistants (Model Context Protocol), over stdio or, with --http, ' +
      'streamable HTTP. The API comes from API_URL (default http://127.0.0.1:8080), the key from API_KEY_FILE or API_KEY.',
  )
    .option('--http', 'serve streamable HTTP at /mcp instead of stdio')
    .option('--port <n>', 'HTTP port (0: any free port)', wholeNumber, defaultMcpPort)
    .option('--host <host>', 'HTTP address to listen on', '127.0.0.1');
  program.parse();
  const options = program.opts<Options>();
  const baseUrl = process.env.API_URL ?? 'http://127.0.0.1:8080';
  const api = createCorpsearchClient({ baseUrl, apiKey: apiKeyFromEnvironment(), maxRetries: 2 });
  const newServer = () => createMcpServer(api, baseUrl);
  if (!options.http) {
    await newServer().connect(new StdioServerTransport());
    return;
  }
  const { url } = await serveHttp(newServer, { host: options.host, port: options.port });
  process.stderr.write(`mcp: serving streamable HTTP at ${url} (API ${baseUrl})\n`);
}

runCli('mcp', main);
