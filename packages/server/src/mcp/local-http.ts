/**
 * `aar mcp --http <port>`: the agent's MCP server over Streamable HTTP at `/mcp`, bound to 127.0.0.1 only (never
 * another interface: the process holds the agent's key, and the endpoint takes no credential, like stdio, so the
 * machine's own users are its only reach). Every request is checked for DNS rebinding first (Host and Origin,
 * origin-guard.ts) and answered 403 when it fails. With `--authorization-server`, the RFC 9728 metadata names it.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { checkOrigin, loopbackPolicy } from './origin-guard.ts';
import { metadataPathsOf, protectedResourceMetadata } from './protected-resource-metadata.ts';
import { rpcError, StreamableSessions } from './streamable-sessions.ts';

export const MCP_PATH = '/mcp';

export interface LocalHttpOptions {
  /** 0 picks a free port */
  port: number;
  newServer(): Server;
  /** extra browser origins allowed (`--allow-origin`) */
  allowOrigins?: readonly string[];
  /** RFC 9728: authorization servers to name (`--authorization-server`) */
  authorizationServers?: readonly string[];
}

export interface LocalHttp {
  url: string;
  port: number;
  close(): Promise<void>;
}

const LOCAL = 'local';

export async function startLocalHttp(options: LocalHttpOptions): Promise<LocalHttp> {
  const sessions = new StreamableSessions({ newServer: () => options.newServer() });
  let policy = loopbackPolicy(options.port, options.allowOrigins);
  let prmPaths = new Set<string>();
  let metadata: unknown;
  const http: HttpServer = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const refused = checkOrigin(policy, req.headers.host, header(req.headers.origin));
    if (refused) return rpcError(res, 403, -32000, `forbidden: ${refused} (DNS rebinding protection)`);
    if (metadata !== undefined && prmPaths.has(url.pathname) && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' });
      return res.end(JSON.stringify(metadata));
    }
    if (url.pathname !== MCP_PATH) return rpcError(res, 404, -32000, `not found; the MCP endpoint is ${MCP_PATH}`);
    sessions.handle(req, res, LOCAL).catch((error: unknown) => {
      process.stderr.write(`aar mcp: ${error instanceof Error ? error.message : String(error)}\n`);
      rpcError(res, 500, -32603, 'internal error');
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, '127.0.0.1', () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  policy = loopbackPolicy(port, options.allowOrigins);
  const url = `http://127.0.0.1:${port}${MCP_PATH}`;
  if (options.authorizationServers && options.authorizationServers.length > 0) {
    metadata = protectedResourceMetadata(url, options.authorizationServers);
    prmPaths = new Set(metadataPathsOf(url));
  }
  return {
    url,
    port,
    close: async () => {
      await sessions.closeAll();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
