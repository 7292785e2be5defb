/**
 * The MCP server over streamable HTTP, stateless: each POST to /mcp gets a fresh server and
 * transport (no session to keep), answered as JSON or an event stream as the client accepts.
 * The endpoint has no login of its own and spends the credits of the key it was started
 * with, so it listens on 127.0.0.1 unless told otherwise, and refuses a request whose Host
 * header names another host (a web page's DNS-rebinding trick) while it listens on loopback.
 */
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export const mcpPath = '/mcp';

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

function refuse(res: ServerResponse, status: number, message: string): void {
  res
    .writeHead(status, { 'Content-Type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** On loopback only a loopback Host is served; listening elsewhere was chosen on purpose. */
function hostAllowed(req: IncomingMessage, listenHost: string): boolean {
  if (!loopbackHosts.has(listenHost)) return true;
  const host = (req.headers.host ?? '').replace(/:\d+$/, '');
  return loopbackHosts.has(host);
}

async function answer(req: IncomingMessage, res: ServerResponse, newServer: () => McpServer): Promise<void> {
  const server = newServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

function handler(listenHost: string, newServer: () => McpServer) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== mcpPath) return refuse(res, 404, `Not found: the MCP endpoint is ${mcpPath}`);
    if (!hostAllowed(req, listenHost)) return refuse(res, 403, 'Forbidden: this Host is not served');
    if (req.method !== 'POST')
      return refuse(res, 405, 'Method not allowed: this stateless endpoint takes POST only');
    answer(req, res, newServer).catch(() => {
      if (!res.headersSent) refuse(res, 500, 'Internal error');
    });
  };
}

/** Listens on `host:port` (0: any free port); resolves with the server and the URL of the endpoint. */
export async function serveHttp(
  newServer: () => McpServer,
  options: { host: string; port: number },
): Promise<{ server: Server; url: string }> {
  const server = http.createServer(handler(options.host, newServer));
  server.listen(options.port, options.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return { server, url: `http://${host}:${port}${mcpPath}` };
}
