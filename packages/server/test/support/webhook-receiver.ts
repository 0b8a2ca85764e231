/** A webhook receiver on 127.0.0.1 (port 0) for delivery tests: records every request; the test decides the answer. */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: Buffer;
  path: string;
  at: number;
}

export type Responder = (req: IncomingMessage, res: ServerResponse, delivery: ReceivedDelivery) => void;

export interface WebhookReceiver {
  url: string;
  received: ReceivedDelivery[];
  respond: Responder;
  /** resolves once `n` requests have arrived (rejects after `ms`) */
  waitFor(n: number, ms?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

export const answer =
  (status: number, headers: Record<string, string> = {}): Responder =>
  (_req, res) => {
    res.writeHead(status, headers).end();
  };

export async function startReceiver(respond: Responder = answer(204), path = '/hook'): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const receiver: WebhookReceiver = {
    url: '',
    received,
    respond,
    waitFor: (n, ms = 20_000) =>
      new Promise((resolve, reject) => {
        if (received.length >= n) return resolve(received);
        const timer = setTimeout(
          () => reject(new Error(`received ${received.length} of ${n} deliveries in ${ms} ms`)),
          ms,
        );
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(received);
          },
        });
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const delivery = { headers: req.headers, body: Buffer.concat(chunks), path: req.url ?? '', at: Date.now() };
      received.push(delivery);
      for (const w of waiters.filter((w) => received.length >= w.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      receiver.respond(req, res, delivery);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  receiver.url = `http://127.0.0.1:${port}${path}`;
  return receiver;
}
