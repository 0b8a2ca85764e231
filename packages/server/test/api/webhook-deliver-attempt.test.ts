/**
 * deliverAttempt on its own, over real loopback sockets: the response body is read to its end and counted, cut at
 * 64 KiB, and a body that stalls after the status line ends at the deadline with the status it had (the status
 * decides); a redirect is a 3xx answer, never followed; a refused URL is refused at every attempt; `Retry-After` is
 * read; a receiver that never answers times out and one that is not there fails to connect, both without a status;
 * the path and query reach the receiver as registered, and the pool stays usable after a cut read.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverAttempt, MAX_RESPONSE_BYTES } from '../../src/services/webhooks/deliver-attempt.ts';

let server: Server;
let base: string;
let handler: (res: ServerResponse) => void = (res) => res.writeHead(204).end();
let lastUrl = '';
const open = new Set<ServerResponse>();

beforeAll(async () => {
  server = createServer((req, res) => {
    open.add(res);
    lastUrl = req.url ?? '';
    res.on('close', () => open.delete(res));
    req.resume();
    req.on('end', () => handler(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  for (const res of open) res.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function post(timeoutMs = 2_000, url = `${base}/hook`, allowInsecure = true) {
  const dispatcher = new Agent({ connections: 1 });
  try {
    return await deliverAttempt(
      { url, body: new TextEncoder().encode('{}'), headers: { 'content-type': 'application/json' } },
      { dispatcher, allowInsecure, timeoutMs },
    );
  } finally {
    await dispatcher.destroy().catch(() => undefined);
  }
}

describe('deliverAttempt', () => {
  it('reads the whole body and counts its bytes', async () => {
    handler = (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(1_000));
    expect(await post()).toMatchObject({ status: 200, error: null, bytesRead: 1_000 });
    handler = (res) => res.writeHead(204).end();
    expect(await post()).toMatchObject({ status: 204, error: null, bytesRead: 0 });
  });

  it('stops reading at 64 KiB', async () => {
    handler = (res) => res.writeHead(200).end(Buffer.alloc(MAX_RESPONSE_BYTES * 3, 0x61));
    expect(await post()).toMatchObject({ status: 200, error: null, bytesRead: MAX_RESPONSE_BYTES });
  });

  it('a body that stalls after the status line ends at the deadline; the status decides', async () => {
    handler = (res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    };
    const started = performance.now();
    const response = await post(300);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(response).toMatchObject({ status: 200, error: null });
    expect(response.bytesRead).toBeLessThanOrEqual(7);
  });

  it('a redirect is answered as it is, never followed', async () => {
    handler = (res) => res.writeHead(302, { location: `${base}/elsewhere` }).end();
    expect(await post()).toMatchObject({ status: 302, error: null });
  });

  it('a refused URL is refused at every attempt, also after it passed with allowInsecure', async () => {
    handler = (res) => res.writeHead(204).end();
    expect(await post(2_000, `${base}/again`, true)).toMatchObject({ status: 204 });
    for (let i = 0; i < 2; i++) {
      expect(await post(2_000, `${base}/again`, false)).toMatchObject({
        status: null,
        error: expect.stringMatching(/^target_refused: /),
      });
    }
  });

  it('reads Retry-After of a 429 and a 503', async () => {
    handler = (res) => res.writeHead(429, { 'retry-after': '7' }).end('slow down');
    expect(await post()).toMatchObject({ status: 429, retryAfter: '7', error: null, bytesRead: 9 });
    handler = (res) => res.writeHead(503, { 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' }).end();
    expect(await post()).toMatchObject({ status: 503, retryAfter: 'Wed, 21 Oct 2026 07:28:00 GMT', error: null });
    handler = (res) => res.writeHead(500).end();
    expect(await post()).toMatchObject({ status: 500, retryAfter: undefined, error: null });
  });

  it('no status: a receiver that never answers times out, a closed port fails to connect', async () => {
    handler = () => undefined; // holds the request open
    expect(await post(200)).toMatchObject({ status: null, error: 'timeout', bytesRead: 0 });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await post(2_000, `http://127.0.0.1:${port}/hook`)).toMatchObject({
      status: null,
      error: expect.stringMatching(/^connection_failed/),
    });
  });

  it('POSTs to the registered path and query; a pool cut at 64 KiB still carries the next attempt', async () => {
    handler = (res) => res.writeHead(204).end();
    expect(await post(2_000, `${base}/hooks/aar?tenant=7&x=%20`)).toMatchObject({ status: 204 });
    expect(lastUrl).toBe('/hooks/aar?tenant=7&x=%20');
    const dispatcher = new Agent({ connections: 1 });
    try {
      const attempt = () =>
        deliverAttempt(
          {
            url: `${base}/hook`,
            body: new TextEncoder().encode('{}'),
            headers: { 'content-type': 'application/json' },
          },
          { dispatcher, allowInsecure: true, timeoutMs: 2_000 },
        );
      handler = (res) => res.writeHead(200).end(Buffer.alloc(MAX_RESPONSE_BYTES * 2, 0x61));
      expect(await attempt()).toMatchObject({ status: 200, bytesRead: MAX_RESPONSE_BYTES });
      handler = (res) => res.writeHead(204).end();
      expect(await attempt()).toMatchObject({ status: 204, error: null });
    } finally {
      await dispatcher.destroy().catch(() => undefined);
    }
  });
});
