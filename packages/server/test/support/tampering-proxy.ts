/**
 * A deliberately broken deployment without a single insecure flag in the product: a small HTTP proxy in front of a
 * real `aar serve` that rewrites some answers on their way back, the way a faulty gateway, a compromised cache or a
 * buggy fork would. The conformance kit, pointed at the proxy, must fail exactly the fixtures that see the damage.
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Answer {
  method: string;
  path: string;
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Returns the answer to send instead (or the same one). */
export type Tamper = (answer: Answer) => Answer;

export interface TamperingProxy {
  base: string;
  /** answers it changed */
  tampered: () => number;
  close(): Promise<void>;
}

export async function startTamperingProxy(upstream: string, tamper: Tamper): Promise<TamperingProxy> {
  const target = new URL(upstream);
  let tampered = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const up = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (upRes) => {
          const body: Buffer[] = [];
          upRes.on('data', (c: Buffer) => body.push(c));
          upRes.on('end', () => {
            const original: Answer = {
              method: req.method ?? 'GET',
              path: req.url ?? '/',
              status: upRes.statusCode ?? 502,
              headers: { ...upRes.headers },
              body: Buffer.concat(body).toString('utf8'),
            };
            const answer = tamper(original);
            if (answer !== original) tampered++;
            const headers = { ...answer.headers, 'content-length': String(Buffer.byteLength(answer.body)) };
            delete headers['transfer-encoding'];
            res.writeHead(answer.status, headers);
            res.end(answer.body);
          });
        },
      );
      up.on('error', (error) => {
        res.writeHead(502);
        res.end(String(error));
      });
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    base: `http://127.0.0.1:${port}`,
    tampered: () => tampered,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Rewrites the JSON body of matching answers; others pass untouched. */
export function rewriteJson(
  matches: (a: Answer) => boolean,
  rewrite: (body: Record<string, unknown>) => Record<string, unknown> | undefined,
): Tamper {
  return (a) => {
    if (!matches(a)) return a;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(a.body) as Record<string, unknown>;
    } catch {
      return a;
    }
    const changed = rewrite(body);
    return changed === undefined ? a : { ...a, body: JSON.stringify(changed) };
  };
}
