/**
 * `/mcp` inside `aar serve`: Streamable HTTP (MCP 2025-11-25 and 2025-06-18) for agent hosts that reach the service
 * directly, authenticated like the rest of the API (a bearer token of the `runtime` role, checked by the same
 * onRequest hook before anything MCP happens). Each session is bound to the token that opened it. The tools read and
 * authorize through the API's own routes with the caller's credential (mcp/service-reader.ts); the agent host signs
 * authorize requests itself (authorize_signed). DNS rebinding: an `Origin` header, when a browser sends one, must be
 * the origin of a public URL of the deployment (AAR_PUBLIC_URL) or listed in AAR_MCP_ALLOWED_ORIGINS; `Host` is not
 * pinned here (a deployment answers under the names its proxies give it), the bearer token is what a rebinding page
 * cannot have. RFC 9728 metadata is served when AAR_MCP_AUTHORIZATION_SERVERS names authorization servers, and a 401
 * from `/mcp` then points at it. JSON-RPC, not REST: these routes are documented in docs/mcp.md, not in OpenAPI.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';
import { buildMcpServer, ToolCatalogue } from '../mcp/agent-server.ts';
import { checkOrigin, normalizeOrigin, type OriginPolicy } from '../mcp/origin-guard.ts';
import { bearerChallenge, metadataPathsOf, protectedResourceMetadata } from '../mcp/protected-resource-metadata.ts';
import { ServiceReader } from '../mcp/service-reader.ts';
import { rpcError, StreamableSessions } from '../mcp/streamable-sessions.ts';
import { authorizeSignedTool } from '../mcp/tools/authorize-signed.ts';
import { awaitApprovalTool } from '../mcp/tools/await-approval.ts';
import { explainDecisionTool } from '../mcp/tools/explain-decision.ts';
import { verifyEvidencePackTool } from '../mcp/tools/verify-evidence-pack.ts';

export const SERVICE_MCP_PATH = '/mcp';

const SERVICE_INFO = {
  name: 'aar-service-mcp',
  title: 'Agent Authority Runtime (service)',
  instructions:
    'Sign every authorize request as the agent (RFC 9421, as for POST /v1/runtime/authorize) and pass it to ' +
    'authorize_signed; follow its decision: allow_with_constraints go ahead, require_approval call await_approval, ' +
    'deny stop. explain_decision explains any decision; verify_evidence_pack checks its proof. Never pass a card ' +
    'number: cards are tokens.',
};

function listOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
}

export async function mcpRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const reader = new ServiceReader(app);
  const catalogue = new ToolCatalogue([
    authorizeSignedTool(reader),
    awaitApprovalTool(reader, undefined),
    explainDecisionTool(reader),
    verifyEvidencePackTool(reader),
  ]);
  const sessions = new StreamableSessions({ newServer: () => buildMcpServer(SERVICE_INFO, catalogue) });
  app.addHook('onClose', async () => sessions.closeAll());

  const publicUrls = ctx.config.publicUrls.length > 0 ? ctx.config.publicUrls : [ctx.config.issuerUrl];
  const origins = new Set([
    ...publicUrls.map((u) => normalizeOrigin(u)),
    ...listOf(process.env.AAR_MCP_ALLOWED_ORIGINS).map(normalizeOrigin),
  ]);
  const originPolicy = (host: string): OriginPolicy => ({ hosts: new Set([host.toLowerCase()]), origins });
  const resource = `${publicUrls[0]!.replace(/\/+$/, '')}${SERVICE_MCP_PATH}`;
  const authorizationServers = listOf(process.env.AAR_MCP_AUTHORIZATION_SERVERS);

  await app.register(async (scope) => {
    // the MCP transport parses the body itself: JSON-RPC errors (-32700), not problem+json, for malformed JSON
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    scope.route({
      method: ['GET', 'POST', 'DELETE'],
      url: SERVICE_MCP_PATH,
      config: { roles: ['runtime'] },
      schema: { hide: true },
      onSend: async (_req, reply, payload) => {
        // a 401 names the protected-resource metadata, as MCP authorization asks (RFC 9728 section 5.1)
        if (reply.statusCode === 401 && authorizationServers.length > 0) {
          reply.header('www-authenticate', bearerChallenge(resource));
        }
        return payload;
      },
      handler: async (req, reply) => {
        const origin = req.headers.origin;
        const refused = checkOrigin(originPolicy(req.headers.host ?? ''), req.headers.host, origin);
        reply.hijack();
        if (refused) return rpcError(reply.raw, 403, -32000, `forbidden: ${refused} (DNS rebinding protection)`);
        const body = Buffer.isBuffer(req.body) ? req.body : undefined;
        await sessions.handle(req.raw, reply.raw, req.credential!.token_id, body);
      },
    });
  });

  if (authorizationServers.length > 0) {
    const metadata = protectedResourceMetadata(resource, authorizationServers);
    for (const url of metadataPathsOf(resource)) {
      app.get(url, { config: { public: true }, schema: { hide: true } }, async () => metadata);
    }
  }
}
