/**
 * POST /v1/runtime/authorize, end to end: normalise the body, read the grant version (the cache's key), verify the
 * agent's signature, resolve the mandate the request names (named-mandate.ts), load the snapshot,
 * then decide and record in one transaction (commit-decision.ts). Every decision, deny included, is recorded.
 */
import type { DecisionSnapshot } from '@aar/core';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { takeGrantVersion } from '../../http/request-grant-version.ts';
import { FactReader } from './cached-facts.ts';
import { commitDecision } from './commit-decision.ts';
import type { AuthorizeResponse } from './decision-response.ts';
import type { GrantLinkVerifier } from './grant-link-verifier.ts';
import { loadSnapshot } from './load-snapshot.ts';
import { resolveNamedMandate } from './named-mandate.ts';
import { knownPolicySetText } from './policy-set-text.ts';
import { storedPolicySetOf } from '../decisions/policy-set-texts.ts';
import { normalizeAuthorizeRequest, type AuthorizeBody } from './normalize-request.ts';
import { verifyPayload, type PayloadVerification } from './verify-payload.ts';

/** What another door to this same path changes (the AuthZEN façade, services/authzen); nothing else differs. */
export interface AuthorizeOptions {
  /** the grant version the caller read for this request (a batch reads one for all its decisions) */
  grantVersion?: number;
  /** verifies the agent's signature on the request the agent sent elsewhere (a PEP's copy) instead of `httpRequest` */
  verifyAgentSignature?: (actorEntityId: string, facts: FactReader) => Promise<PayloadVerification>;
}

export async function authorize(
  ctx: AppContext,
  verifier: GrantLinkVerifier,
  httpRequest: FastifyRequest,
  body: AuthorizeBody,
  options: AuthorizeOptions = {},
): Promise<AuthorizeResponse> {
  const request = normalizeAuthorizeRequest(body);
  const now = ctx.clock.now();
  // The version first, every fact after it (grant-cache.ts): nothing read below is older than this version. It was
  // read with the credential when the route asks for it (request-grant-version.ts), else it is read now.
  const known = options.grantVersion ?? takeGrantVersion(httpRequest);
  const version = known === undefined ? await verifier.grants.currentVersion() : verifier.grants.atVersion(known);
  const facts = new FactReader(ctx.store.db, verifier.grants, version);
  const payload = options.verifyAgentSignature
    ? await options.verifyAgentSignature(request.actor_entity_id, facts)
    : await verifyPayload(ctx, httpRequest, request.actor_entity_id, facts);
  const status = payload.result.status;
  const payloadSnapshot: DecisionSnapshot['payload'] = {
    required: ctx.config.requireSignedRequests,
    present: status !== 'missing',
    signature_valid: status === 'valid' || status === 'stale',
    ...(payload.result.created !== undefined && (status === 'valid' || status === 'stale')
      ? { created: payload.result.created }
      : {}),
    nonce_fresh: false,
    window_seconds: ctx.config.signatureWindowSeconds,
    // what an integrator needs to see why a signature failed: the URLs it was checked against, the verifier's code
    ...(payload.result.targetUris ? { target_uris: payload.result.targetUris } : {}),
    ...(status === 'invalid' && payload.result.failure ? { signature_failure: payload.result.failure } : {}),
  };
  // the mandate the request names, its presentation verified (422 `mandate_invalid`, nothing recorded)
  const named = await resolveNamedMandate(ctx, request, now);
  const { snapshot, readsCounters, mandates } = await loadSnapshot(
    ctx,
    verifier,
    request,
    payloadSnapshot,
    now,
    facts,
    named,
  );
  // stored once per store before any record names it (record codec 2): not inside the decision's transaction
  const policySet = (snapshot as { policy_set?: object }).policy_set;
  const storedPolicySet = await storedPolicySetOf(ctx, policySet, knownPolicySetText(policySet)?.get(policySet!));
  return commitDecision(ctx, {
    request,
    snapshot,
    payload,
    now,
    readsCounters,
    storedPolicySet,
    mandates,
    ...(named && named.nonces.length > 0 ? { mandateNonces: named.nonces } : {}),
  });
}
