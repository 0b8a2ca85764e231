/**
 * Streamable HTTP sessions (MCP 2025-11-25 / 2025-06-18, Transports): one SDK transport and one MCP Server per
 * session, created by an `initialize` POST without `Mcp-Session-Id` and found again by that header. A request
 * naming an unknown (or ended) session is answered 404, as the transport specification asks, so the client starts
 * a new one. A session is bound to the credential that opened it (`owner`): another caller presenting the same
 * session id is answered as if the session did not exist. Bounded: past `maxPerOwner` sessions of one credential
 * its oldest is closed (one caller cannot push out the others'), past `maxSessions` in all the oldest of any.
 * Bodies are read here (size-limited) and parsed once; malformed JSON is a JSON-RPC parse error (-32700).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

export const MAX_BODY_BYTES = 1024 * 1024;

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  owner: string;
}

export interface SessionHostOptions {
  /** a new MCP server for a new session; `owner` is the credential that opens it */
  newServer(owner: string): Server;
  /** default 256 */
  maxSessions?: number;
  /** default 16 */
  maxPerOwner?: number;
}

export class StreamableSessions {
  readonly #sessions = new Map<string, Session>();
  readonly #options: SessionHostOptions;

  constructor(options: SessionHostOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Handles one request to the MCP endpoint; `body` is the raw body already read (POST), if any. */
  async handle(req: IncomingMessage, res: ServerResponse, owner: string, body?: Buffer): Promise<void> {
    const method = req.method ?? 'GET';
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      res.setHeader('allow', 'GET, POST, DELETE');
      return rpcError(res, 405, -32000, `method ${method} is not allowed on the MCP endpoint`);
    }
    let parsed: unknown;
    if (method === 'POST') {
      const raw = body ?? (await readBody(req, res));
      if (raw === undefined) return;
      try {
        parsed = JSON.parse(raw.toString('utf8'));
      } catch {
        return rpcError(res, 400, -32700, 'parse error: the body is not JSON');
      }
    }
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const session = this.#sessions.get(sessionId);
      if (!session || session.owner !== owner) return rpcError(res, 404, -32001, 'session not found');
      return session.transport.handleRequest(req, res, parsed);
    }
    if (method !== 'POST' || !isInitializeRequest(parsed)) {
      return rpcError(res, 400, -32000, 'no Mcp-Session-Id: send `initialize` first');
    }
    await this.#open(owner, req, res, parsed);
  }

  async #open(owner: string, req: IncomingMessage, res: ServerResponse, parsed: unknown): Promise<void> {
    const perOwner = this.#options.maxPerOwner ?? 16;
    const own = [...this.#sessions].filter(([, s]) => s.owner === owner).map(([id]) => id);
    for (const id of own.slice(0, Math.max(0, own.length - perOwner + 1))) await this.#close(id);
    const max = this.#options.maxSessions ?? 256;
    while (this.#sessions.size >= max) {
      const [oldest] = this.#sessions.keys();
      await this.#close(oldest!);
    }
    const server = this.#options.newServer(owner);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.#sessions.set(id, { transport, server, owner });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.#sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, parsed);
  }

  async #close(id: string): Promise<void> {
    const session = this.#sessions.get(id);
    this.#sessions.delete(id);
    await session?.server.close().catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    for (const id of [...this.#sessions.keys()]) await this.#close(id);
  }
}

/** Reads the body up to MAX_BODY_BYTES; answers 413 and gives undefined past it. */
export async function readBody(req: IncomingMessage, res: ServerResponse): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      rpcError(res, 413, -32000, `the body is larger than ${MAX_BODY_BYTES} bytes`);
      req.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** A JSON-RPC error object as the whole HTTP answer (no request id is known at this layer). */
export function rpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
