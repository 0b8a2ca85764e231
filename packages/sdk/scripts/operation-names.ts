/**
 * The SDK's method name for every operation of the service ("METHOD /path" as in docs/openapi.json). The routes
 * gain `operationId`s over time; the SDK's names stay here, keyed by method and path, so that a route's operationId
 * changing never renames an SDK method (renaming one is a breaking change of the SDK). They follow the operationIds
 * except where the SDK's name says more (`verifyAudit`; `verifyEvidencePackOnline`, beside the offline verifier).
 * A route missing here takes its operationId; a route with neither makes `npm run sdk:generate` fail, and a name the
 * client has no method for fails the client's route test, so no route is forgotten.
 */
export const OPERATION_NAMES: Readonly<Record<string, string>> = {
  'GET /v1/openapi.json': 'getOpenApiDocument',
  'GET /metrics': 'getMetrics',
  'GET /healthz': 'getHealth',
  'GET /.well-known/jwks.json': 'getJwks',

  'POST /v1/entities': 'createEntity',
  'POST /v1/mandate-issuers': 'createMandateIssuer',
  'GET /v1/entities': 'listEntities',
  'GET /v1/entities/{id}': 'getEntity',
  'DELETE /v1/entities/{id}': 'deleteEntity',
  'POST /v1/entities/{id}/suspend': 'suspendEntity',
  'POST /v1/entities/{id}/activate': 'activateEntity',

  'POST /v1/card-tokens': 'createCardToken',
  'GET /v1/card-tokens': 'listCardTokens',
  'GET /v1/card-tokens/{id}': 'getCardToken',
  'POST /v1/card-tokens/{id}/suspend': 'suspendCardToken',
  'POST /v1/card-tokens/{id}/activate': 'activateCardToken',

  'POST /v1/merchants': 'createMerchant',
  'GET /v1/merchants': 'listMerchants',
  'GET /v1/merchants/{id}': 'getMerchant',

  'POST /v1/grants': 'createGrant',
  'GET /v1/grants': 'listGrants',
  'GET /v1/grants/{id}': 'getGrant',
  'GET /v1/grants/{id}/chain': 'getGrantChain',
  'GET /v1/delegations/{id}': 'getDelegation',
  'POST /v1/grants/{id}/revoke': 'revokeGrant',

  'POST /v1/tokens': 'createToken',
  'GET /v1/tokens': 'listTokens',
  'DELETE /v1/tokens/{id}': 'revokeToken',

  'GET /v1/events': 'listEvents',
  'GET /v1/event-types': 'listEventTypes',

  'GET /v1/decisions/{id}': 'getDecision',
  'GET /v1/decision-maps/{id}': 'getDecisionMap',

  'GET /v1/approvals': 'listApprovals',
  'GET /v1/approvals/{id}': 'getApproval',
  'POST /v1/approvals/{id}/decision': 'decideApproval',

  'POST /v1/risk-signals': 'recordRiskSignal',

  'GET /v1/capabilities': 'listCapabilities',
  'GET /v1/capabilities/{id}': 'getCapability',
  'GET /v1/scopes/{id}': 'getScope',
  'GET /v1/states': 'listStates',
  'GET /v1/states/{id}': 'getState',
  'GET /v1/policies': 'listPolicies',
  'GET /v1/policies/{id}': 'getPolicy',

  'POST /v1/runtime/authorize': 'authorize',
  'POST /v1/runtime/outcomes': 'recordOutcome',

  'POST /v1/audit/append': 'appendAuditEntry',
  'GET /v1/audit/verify': 'verifyAudit',
  'GET /v1/audit/checkpoint': 'getAuditCheckpoint',
  'POST /v1/audit/checkpoint': 'signAuditCheckpoint',
  'GET /v1/audit/entries/{index}': 'getAuditEntry',
  'GET /v1/audit/proofs/inclusion': 'getInclusionProof',
  'GET /v1/audit/proofs/consistency': 'getConsistencyProof',

  'GET /v1/evidence-packs/{id}': 'getEvidencePack',
  'POST /v1/evidence-packs/verify': 'verifyEvidencePackOnline',

  'POST /v1/webhook-endpoints': 'createWebhookEndpoint',
  'GET /v1/webhook-endpoints': 'listWebhookEndpoints',
  'GET /v1/webhook-endpoints/{id}': 'getWebhookEndpoint',
  'PATCH /v1/webhook-endpoints/{id}': 'updateWebhookEndpoint',
  'DELETE /v1/webhook-endpoints/{id}': 'deleteWebhookEndpoint',
  'POST /v1/webhook-endpoints/{id}/rotate-secret': 'rotateWebhookSecret',
  'POST /v1/webhook-endpoints/{id}/enable': 'enableWebhookEndpoint',
  'POST /v1/webhook-endpoints/{id}/disable': 'disableWebhookEndpoint',
  'GET /v1/webhook-endpoints/{id}/deliveries': 'listWebhookDeliveries',
  'POST /v1/webhook-endpoints/{id}/replay': 'replayWebhookDeliveries',

  // issue 12-14 routes: the client has these methods already (hand-typed in src/client/route-types.ts)
  'GET /v1/decisions': 'searchDecisions',
  'GET /v1/decisions/stats': 'getDecisionStats',
  'GET /v1/tokens/self': 'getOwnToken',

  'POST /v1/bundles/assemble': 'assembleBundle',
  'GET /v1/bundles/{id}': 'getBundle',
  'GET /v1/bundles/{id}/parts/{name}': 'getBundlePart',
  'POST /v1/bundles/verify': 'verifyBundleOnline',

  'GET /v1/schemas': 'listSchemas',
  'GET /v1/schemas/{name}': 'getSchema',

  'GET /v1/compliance/frameworks': 'listComplianceFrameworks',
  'GET /v1/compliance/frameworks/{framework}': 'getComplianceFramework',
  'POST /v1/compliance/projections': 'createComplianceProjection',
  'POST /v1/self-audit/runs': 'createSelfAuditRun',
  'GET /v1/self-audit/runs/{id}': 'getSelfAuditRun',
  'POST /v1/certification/attestations': 'createCertificationAttestation',
  'GET /v1/certification/attestations/{id}': 'getCertificationAttestation',
  'POST /v1/certification/verify': 'verifyCertificationAttestation',
  'GET /v1/conformance/profiles': 'listConformanceProfiles',
  'GET /v1/conformance/fixtures': 'listConformanceFixtures',
  'POST /v1/conformance/runs': 'createConformanceRun',
  'GET /v1/conformance/runs/{id}': 'getConformanceRun',
  'POST /v1/conformance/runs/{id}/retire': 'retireConformanceRun',

  'GET /v1/connectors': 'listConnectors',
  'GET /v1/connectors/{id}': 'getConnector',
  'POST /v1/listings': 'createListing',
  'GET /v1/listings/search': 'searchListings',
  'GET /v1/listings/{id}': 'getListing',

  // the AuthZEN Authorization API 1.0 door (CONTRACT section 20)
  'GET /.well-known/authzen-configuration': 'getAuthzenConfiguration',
  'POST /access/v1/evaluation': 'authzenEvaluate',
  'POST /access/v1/evaluations': 'authzenEvaluateMany',
  'POST /access/v1/search/subject': 'authzenSearchSubjects',
  'POST /access/v1/search/resource': 'authzenSearchResources',
  'POST /access/v1/search/action': 'authzenSearchActions',
};
