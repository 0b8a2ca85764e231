/**
 * A local HTTP server (node:http, a real socket) that records every request and answers from a script: what the
 * client's unit tests talk to instead of the service.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** path and query as received */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Responder = (req: RecordedRequest, res: ServerResponse, index: number) => void;

export interface RecordingServer {
  base: string;
  requests: RecordedRequest[];
  /** answers in turn; the last one answers every further request */
  respond(...responders: Responder[]): void;
  close(): Promise<void>;
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Responder {
  return (_req, res) => {
    const type = status >= 400 ? 'application/problem+json' : 'application/json';
    res.writeHead(status, { 'content-type': type, ...headers });
    res.end(JSON.stringify(body));
  };
}

export function problem(status: number, code: string, extra: Record<string, unknown> = {}, headers = {}): Responder {
  return json(
    status,
    { type: `urn:aar:problem:${code}`, title: code, status, code, detail: `${code} detail`, ...extra },
    headers,
  );
}

/** closes the connection without an answer: a network error for the client */
export const hangUp: Responder = (_req, res) => {
  res.socket?.destroy();
};

export async function startRecordingServer(): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  let responders: Responder[] = [json(200, {})];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const index = requests.push(recorded) - 1;
      const responder = responders[Math.min(index, responders.length - 1)]!;
      responder(recorded, res, index);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    requests,
    respond(...next) {
      responders = next;
      requests.length = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
