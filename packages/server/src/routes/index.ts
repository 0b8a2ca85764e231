import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';
import { GrantCache } from '../services/authorize/grant-cache.ts';
import { GrantLinkVerifier } from '../services/authorize/grant-link-verifier.ts';
import { approvalRoutes } from './approvals.ts';
import { authzenRoutes } from './authzen.ts';
import { auditRoutes } from './audit.ts';
import { cardTokenRoutes } from './card-tokens.ts';
import { complianceRoutes } from './compliance.ts';
import { selfAuditRoutes } from './self-audit.ts';
import { certificationRoutes } from './certification.ts';
import { conformanceRoutes } from './conformance.ts';
import { connectorRoutes } from './connectors.ts';
import { listingRoutes } from './listings.ts';
import { dictionaryRoutes } from './dictionaries.ts';
import { ruleActivationRoutes } from './rule-activations.ts';
import { backtestRoutes } from './backtests.ts';
import { rulePackRoutes } from './rule-packs.ts';
import { sectorPackRoutes } from './sector-packs.ts';
import { consoleRoutes } from './console.ts';
import { decisionSearchRoutes } from './decision-search.ts';
import { decisionRoutes } from './decisions.ts';
import { entityRoutes } from './entities.ts';
import { evidencePackRoutes } from './evidence-packs.ts';
import { eventRoutes } from './events.ts';
import { eventTypeRoutes } from './event-types.ts';
import { grantRoutes } from './grants.ts';
import { bundleRoutes } from './bundles.ts';
import { jsonSchemaRoutes } from './json-schemas.ts';
import { jwksRoutes } from './jwks.ts';
import { mcpRoutes } from './mcp.ts';
import { merchantRoutes } from './merchants.ts';
import { allowanceRoutes } from './allowances.ts';
import { mandateIssuerRoutes } from './mandate-issuers.ts';
import { mandateRoutes } from './mandates.ts';
import { referenceRoutes } from './references.ts';
import { riskSignalRoutes } from './risk-signals.ts';
import { tokenSelfRoutes } from './token-self.ts';
import { runtimeRoutes } from './runtime.ts';
import { tokenRoutes } from './tokens.ts';
import { registerRunMarker } from '../services/conformance/run-marker.ts';
import { webhookEndpointRoutes } from './webhook-endpoints.ts';
import { graphRoutes } from './graph.ts';
import { payloadArtefactRoutes } from './payload-artefacts.ts';
import { memoryRoutes } from './memory.ts';
import { searchRoutes } from './search.ts';
import { dataFlowRoutes } from './data-flow.ts';
import { taxonomyRoutes } from './taxonomy.ts';
import { reportRoutes } from './reports.ts';
import { agentMetadataRoutes } from './agent-metadata.ts';

/** One file per resource; each registers its own routes with their schemas (which feed the OpenAPI document). */
export async function registerRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  // before every route: what a conformance run creates is marked with its run (services/conformance/run-marker.ts)
  registerRunMarker(app, ctx);
  const resources = [jwksRoutes, entityRoutes, cardTokenRoutes, merchantRoutes, grantRoutes, tokenRoutes, eventRoutes];
  for (const register of [...resources, decisionRoutes, approvalRoutes, riskSignalRoutes, referenceRoutes]) {
    await register(app, ctx);
  }
  // one grant cache per app, kept in step with every instance by the grant version (+ NOTIFY on PostgreSQL)
  const grantCache = new GrantCache(ctx);
  await grantCache.start();
  app.addHook('onClose', async () => grantCache.stop());
  // one verifier per app: it caches which grant links were already verified
  const verifier = new GrantLinkVerifier(ctx, grantCache);
  await runtimeRoutes(app, ctx, verifier);
  // the AuthZEN door (CONTRACT section 20): the same authorize path, the same verifier
  await authzenRoutes(app, ctx, verifier);
  await auditRoutes(app, ctx);
  await evidencePackRoutes(app, ctx);
  await webhookEndpointRoutes(app, ctx);
  await eventTypeRoutes(app, ctx);
  await complianceRoutes(app, ctx);
  await selfAuditRoutes(app, ctx);
  await certificationRoutes(app, ctx);
  await conformanceRoutes(app, ctx);
  await consoleRoutes(app, ctx);
  await decisionSearchRoutes(app, ctx);
  await tokenSelfRoutes(app, ctx);
  await jsonSchemaRoutes(app, ctx);
  await bundleRoutes(app, ctx);
  await connectorRoutes(app, ctx);
  await listingRoutes(app, ctx);
  // policy content (CONTRACT section 19)
  await rulePackRoutes(app, ctx);
  await dictionaryRoutes(app, ctx);
  await sectorPackRoutes(app, ctx);
  await ruleActivationRoutes(app, ctx);
  await backtestRoutes(app, ctx);
  // payment-protocol mandates and allowances (CONTRACT section 21)
  await mandateIssuerRoutes(app, ctx);
  await mandateRoutes(app, ctx);
  await allowanceRoutes(app, ctx);
  // the v1.1 preview set (CONTRACT section 22): each operation `x-preview: true`
  await graphRoutes(app, ctx);
  await payloadArtefactRoutes(app, ctx);
  await memoryRoutes(app, ctx);
  await searchRoutes(app, ctx);
  await dataFlowRoutes(app, ctx);
  await taxonomyRoutes(app, ctx);
  await reportRoutes(app, ctx);
  await agentMetadataRoutes(app, ctx);
  // the MCP door (docs/mcp.md): Streamable HTTP at /mcp, the same routes underneath with the caller's credential
  await mcpRoutes(app, ctx);
}
