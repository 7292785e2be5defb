/**
 * HTTP for the concurrency tests: at most 50 open sockets per server, however many requests
 * are in flight. `fetch` opens one socket per concurrent request, so 1,000 concurrent
 * requests to an in-process server hold about 2,000 file descriptors (both ends), beyond the
 * limit of many machines; through this agent the rest wait in the client's queue, while each
 * server still sees 50 at a time, enough for every race the tests look for.
 */
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });

/** POSTs `body` as JSON; answers a standard Response (status, headers, body). */
export function postJson(url: string, headers: Record<string, string>, body: unknown): Promise<Response> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(payload)),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            for (const one of Array.isArray(value) ? value : [value ?? '']) responseHeaders.append(name, one);
          }
          resolve(
            new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0, headers: responseHeaders }),
          );
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
