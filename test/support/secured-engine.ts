/**
 * A secured OpenSearch for tests, on loopback: an HTTPS endpoint with a certificate from a
 * private CA made at test time (scripts/engine-certs.sh, the operator's tool), which demands
 * HTTP basic auth the way the security plugin does (401 with `WWW-Authenticate: Basic` and no
 * body worth quoting) and forwards an authenticated request to the test node. The local
 * runner has no security plugin; what is under test is the client side: TLS verification
 * against OPENSEARCH_CA_FILE and credentials on every request.
 *
 *   const engine = await startSecuredEngine(inject('opensearchUrl'), { username: 'api', password });
 *   engine.url, engine.caFile, engine.setPassword('rotated'), engine.refused, await engine.stop()
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface SecuredEngine {
  /** https://127.0.0.1:<port> */
  url: string;
  /** The PEM of the CA that signed the endpoint's certificate. */
  caFile: string;
  /** A CA of its own that signed nothing here: a certificate checked against it fails. */
  otherCaFile: string;
  /** Requests turned away with 401 so far. */
  readonly refused: number;
  /** Requests forwarded to the node so far. */
  readonly forwarded: number;
  /** Changes the password it accepts from now on (a rotated or revoked credential). */
  setPassword(password: string): void;
  /** From now on, answers 403 as the plugin does to a user without the right (undefined: none). */
  forbid(request: { method: string; path: RegExp } | undefined): void;
  stop(): Promise<void>;
}

const root = path.resolve(import.meta.dirname, '..', '..');

export async function startSecuredEngine(
  upstreamUrl: string,
  credentials: { username: string; password: string },
): Promise<SecuredEngine> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'secured-engine-'));
  const certs = path.join(dir, 'certs');
  const other = path.join(dir, 'other');
  execFileSync('bash', [path.join(root, 'scripts', 'engine-certs.sh'), certs, 'localhost', '127.0.0.1'], {
    stdio: 'ignore',
  });
  execFileSync('bash', [path.join(root, 'scripts', 'engine-certs.sh'), other, 'localhost', '127.0.0.1'], {
    stdio: 'ignore',
  });
  const upstream = new URL(upstreamUrl.split(',')[0] as string);
  let expected = basic(credentials.username, credentials.password);
  let forbidden: { method: string; path: RegExp } | undefined;
  let refused = 0;
  let forwarded = 0;
  const agent = new http.Agent({ keepAlive: true });

  const server = https.createServer(
    { cert: readFileSync(path.join(certs, 'node.pem')), key: readFileSync(path.join(certs, 'node-key.pem')) },
    (req, res) => {
      if (req.headers.authorization !== expected) {
        refused++;
        req.resume();
        res.writeHead(401, {
          'WWW-Authenticate': 'Basic realm="OpenSearch Security"',
          'Content-Type': 'text/plain',
        });
        res.end('Unauthorized');
        return;
      }
      if (forbidden && req.method === forbidden.method && forbidden.path.test(req.url ?? '')) {
        req.resume();
        res.writeHead(403, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify({
            error: {
              type: 'security_exception',
              reason: `no permissions for [${forbidden.path}] and User [name=${credentials.username}]`,
            },
            status: 403,
          }),
        );
        return;
      }
      forwarded++;
      const { authorization: _a, host: _h, ...headers } = req.headers;
      const forward = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers,
          agent,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      req.pipe(forward);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    caFile: path.join(certs, 'root-ca.pem'),
    otherCaFile: path.join(other, 'root-ca.pem'),
    get refused() {
      return refused;
    },
    get forwarded() {
      return forwarded;
    },
    setPassword(password: string) {
      expected = basic(credentials.username, password);
    },
    forbid(request) {
      forbidden = request;
    },
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      agent.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}
