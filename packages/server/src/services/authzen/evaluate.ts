/**
 * The AuthZEN evaluation endpoints (CONTRACT section 20), one and many, as a thin layer: a purchase goes through the
 * one authorize path (services/authorize/authorize.ts: the same checks, signed map, audit entry and evidence), any
 * other action through the generic rule packs (generic-evaluation.ts, signed and audited by
 * record-access-decisions.ts).
 * INVARIANTS
 * - Everything is checked before anything is decided: the shape of each evaluation (a batch's items merged with its
 *   defaults), the purchase mapping and the principal each item may act for. A malformed or forbidden item refuses
 *   the whole request (400/403 naming `/evaluations/<i>/…`) and nothing is recorded, allowed or not.
 * - A `pep` token bound to a principal evaluates for that principal only; an unbound `pep` and `runtime` for any.
 * - A batch reads the grant version once (with the credential, like authorize) and the generic policy set once per
 *   principal. With `execute_all` the items are decided concurrently, as concurrent calls would be (their writes
 *   share the store's group commit; each decision's limits see every decision committed before it); a short-circuit
 *   semantic decides them in order, one at a time. Generic items are signed and recorded together in one
 *   transaction. Nothing is answered before everything decided is recorded.
 * - `decision` is true only for `allow_with_constraints` or `permit`.
 */
import { AarError, fieldError, parseEntityId } from '@aar/core';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { takeGrantVersion } from '../../http/request-grant-version.ts';
import { authorize } from '../authorize/authorize.ts';
import type { AuthorizeResponse } from '../authorize/decision-response.ts';
import type { GrantLinkVerifier } from '../authorize/grant-link-verifier.ts';
import { normalizeAuthorizeRequest, type AuthorizeBody } from '../authorize/normalize-request.ts';
import type { UnsignedAccessDecision } from './access-decision.ts';
import { agentRequestVerifier, parseAgentRequest, type AgentRequest } from './agent-request.ts';
import {
  MAX_EVALUATIONS,
  type AuthzenDecision,
  type AuthzenEvaluation,
  type AuthzenEvaluationsBody,
  type EvaluationsSemantic,
} from './authzen-model.ts';
import { decideAccess, GenericPolicies } from './generic-evaluation.ts';
import { authorizeBodyOf, inAuthzenTerms, isPurchaseActionName, translated } from './purchase-mapping.ts';
import { recordAccessDecisions, type SignedAccessDecision } from './record-access-decisions.ts';

export interface EvaluationEnv {
  ctx: AppContext;
  verifier: GrantLinkVerifier;
  request: FastifyRequest;
  credential: Credential;
}

type Plan =
  | { kind: 'purchase'; at: string; body: AuthorizeBody; agentRequest: AgentRequest | undefined }
  | { kind: 'generic'; at: string; ev: AuthzenEvaluation; principal: string | undefined };

export async function evaluateOne(env: EvaluationEnv, ev: AuthzenEvaluation): Promise<AuthzenDecision> {
  const [answer] = await run(env, [plan(env, ev, '')], 'execute_all');
  return answer!;
}

export async function evaluateMany(
  env: EvaluationEnv,
  body: AuthzenEvaluationsBody,
): Promise<{ evaluations: AuthzenDecision[] } | AuthzenDecision> {
  const items = body.evaluations ?? [];
  if (items.length > MAX_EVALUATIONS) {
    throw fieldError(
      'invalid_request',
      '/evaluations',
      `at most ${MAX_EVALUATIONS} evaluations per request, got ${items.length}`,
    );
  }
  const defaults = { subject: body.subject, action: body.action, resource: body.resource, context: body.context };
  // no items: the request is one evaluation, answered as one (AuthZEN 1.0, the evaluations API's default values)
  if (items.length === 0) return evaluateOne(env, checked(defaults, ''));
  const plans = items.map((item, i) => {
    const at = `/evaluations/${i}`;
    const merged = {
      subject: item.subject ?? defaults.subject,
      action: item.action ?? defaults.action,
      resource: item.resource ?? defaults.resource,
      context: item.context ?? defaults.context,
    };
    return plan(env, checked(merged, at), at);
  });
  return { evaluations: await run(env, plans, body.options?.evaluations_semantic ?? 'execute_all') };
}

/** The members every evaluation needs, once a batch has merged its defaults (the route schemas check the rest). */
function checked(ev: Partial<AuthzenEvaluation>, at: string): AuthzenEvaluation {
  if (!ev.subject || typeof ev.subject.type !== 'string' || typeof ev.subject.id !== 'string') {
    throw fieldError('invalid_request', `${at}/subject`, 'is required: `{ type, id }` (here or in the defaults)');
  }
  if (!ev.action || typeof ev.action.name !== 'string') {
    throw fieldError('invalid_request', `${at}/action`, 'is required: `{ name }` (here or in the defaults)');
  }
  if (!ev.resource || typeof ev.resource.type !== 'string') {
    throw fieldError('invalid_request', `${at}/resource`, 'is required: `{ type }` (here or in the defaults)');
  }
  return ev as AuthzenEvaluation;
}

function plan(env: EvaluationEnv, ev: AuthzenEvaluation, at: string): Plan {
  if (isPurchaseActionName(ev.action.name)) {
    const body = authorizeBodyOf(ev, at);
    // the authorize body's own checks, now, so a bad item refuses the batch before anything is decided
    let principal: string;
    try {
      principal = normalizeAuthorizeRequest(body).principal_entity_id;
    } catch (error) {
      throw translated(error, at);
    }
    assertMayActFor(env.credential, principal, `${at}/context/principal_entity_id`);
    const forwarded = ev.context?.agent_request;
    const agentRequest =
      forwarded === undefined
        ? undefined
        : parseAgentRequest(forwarded, `${at}/context/agent_request`, env.ctx.config.pepUrls);
    return { kind: 'purchase', at, body, agentRequest };
  }
  const named = ev.context?.principal_entity_id;
  const principal =
    named === undefined
      ? undefined
      : parseEntityId(named, `${at}/context/principal_entity_id`, ['person', 'organisation']).id;
  if (env.credential.role === 'pep' && env.credential.principal_entity_id !== null) {
    assertMayActFor(env.credential, principal, `${at}/context/principal_entity_id`);
  }
  return { kind: 'generic', at, ev, principal };
}

function assertMayActFor(credential: Credential, principal: string | undefined, pointer: string): void {
  if (credential.role !== 'pep' || credential.principal_entity_id === null) return;
  if (principal === credential.principal_entity_id) return;
  throw new AarError(
    'forbidden',
    `${pointer}: this pep token evaluates only for \`${credential.principal_entity_id}\``,
    { errors: [{ path: pointer, message: `must be \`${credential.principal_entity_id}\` for this token` }] },
  );
}

async function run(
  env: EvaluationEnv,
  plans: readonly Plan[],
  semantic: EvaluationsSemantic,
): Promise<AuthzenDecision[]> {
  const { ctx, verifier, request } = env;
  // the version first, every fact after it (grant-cache.ts), one for the whole request
  const known = takeGrantVersion(request);
  const version = known === undefined ? await verifier.grants.currentVersion() : verifier.grants.atVersion(known);
  const policies = new GenericPolicies(ctx, version);
  const pending: UnsignedAccessDecision[] = [];
  const decideOne = async (p: Plan): Promise<AuthzenDecision | { pending: UnsignedAccessDecision }> => {
    if (p.kind === 'purchase') {
      const aar = await inAuthzenTerms(p.at, () =>
        authorize(ctx, verifier, request, p.body, {
          grantVersion: version,
          verifyAgentSignature: agentRequestVerifier(ctx, p.agentRequest),
        }),
      );
      return purchaseAnswer(aar);
    }
    const unsigned = decideAccess(ctx, p.ev, await policies.of(p.principal), ctx.clock.now().toISOString());
    pending.push(unsigned);
    return { pending: unsigned };
  };
  const allowed = (a: AuthzenDecision | { pending: UnsignedAccessDecision }) =>
    'pending' in a ? a.pending.decision === 'permit' : a.decision;
  let answers: Array<AuthzenDecision | { pending: UnsignedAccessDecision }>;
  if (semantic === 'execute_all') {
    // every item is decided: all at once, as concurrent calls would be; their writes share the store's group commit
    // (one transaction and one sync for many decisions, store/write-queue.ts), each seeing the ones committed before
    answers = await Promise.all(plans.map(decideOne));
  } else {
    // a short-circuit needs each answer before the next item: in order, one at a time
    answers = [];
    for (const p of plans) {
      const answer = await decideOne(p);
      answers.push(answer);
      if (semantic === 'deny_on_first_deny' && !allowed(answer)) break;
      if (semantic === 'permit_on_first_permit' && allowed(answer)) break;
    }
  }
  const recorded = new Map<string, SignedAccessDecision>();
  for (const doc of await recordAccessDecisions(ctx, pending)) recorded.set(doc.access_decision_id, doc);
  return answers.map((a) => ('pending' in a ? accessAnswer(recorded.get(a.pending.access_decision_id)!) : a));
}

function purchaseAnswer(aar: AuthorizeResponse): AuthzenDecision {
  return { decision: aar.decision === 'allow_with_constraints', context: { aar } };
}

function accessAnswer(doc: SignedAccessDecision): AuthzenDecision {
  return {
    decision: doc.decision === 'permit',
    context: {
      aar: {
        access_decision_id: doc.access_decision_id,
        decision: doc.decision,
        reason: doc.reason,
        audit_ref: doc.audit_ref,
        access_decision: doc,
      },
    },
  };
}
