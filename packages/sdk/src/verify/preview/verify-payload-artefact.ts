/**
 * A payload artefact (`ns.payload_artefact.v1`, docs/artefacts.md "Offline verification" steps 1, 2 and 4), offline:
 * its signature by a key of the caller's JWKS, then what the document must say of itself:
 * - `shape`: ids, kind, digest and timestamps of their forms;
 * - `state`: `reason` only when rejected, `outcome` and `executed_at` exactly when executed, a known decision
 *   (agent and principal) for a verified or executed artefact, an agent key thumbprint only beside a signature that
 *   verified (so never on a rejected artefact);
 * - `basket`: a verified or executed basket's `basket_hash` is `sha-256:` + its digest (authorize's binding);
 * - `transitions`: `received`, then `verified` or `rejected` as the state says, then `executed` exactly when
 *   executed, with non-decreasing instants, and `received_at <= decided_at <= executed_at`;
 * and, when the caller passes them, `payload` (the bytes it holds hash to `digest`) and `agent_signature` (the
 * agent's signature over the statement verifies with the agent key the caller trusts, never one the document names).
 */
import { encodeBase64Url, jwkThumbprint, verifyDocument, type Ed25519PublicJwk } from '@aar/core';
import type { TrustedKeySource } from '../trusted-key-source.ts';
import { before, isNsId, isTimestamp, member, requireFields } from './document-fields.ts';
import {
  fail,
  isRecord,
  verifyPreviewDocument,
  type CheckOutcome,
  type DocumentCheck,
  type PreviewCheck,
  type PreviewVerificationResult,
} from './preview-verification.ts';

export const PAYLOAD_ARTEFACT_SCHEMA = 'ns.payload_artefact.v1';
export const PAYLOAD_ARTEFACT_STATEMENT_SCHEMA = 'ns.payload_artefact_statement.v1';

const KINDS = new Set(['checkout', 'basket', 'payment_instruction']);
const STATES = new Set(['verified', 'rejected', 'executed']);
const REJECTION_REASONS = new Set([
  'decision_unknown',
  'decision_not_allowed',
  'decision_not_execute',
  'decision_expired',
  'decision_settled',
  'signature_missing',
  'signature_key_unknown',
  'signature_invalid',
  'mandate_mismatch',
  'basket_not_bound',
  'basket_mismatch',
  'decision_has_artefact',
]);
const DIGEST = /^[A-Za-z0-9_-]{43}$/;

export interface VerifyPayloadArtefactOptions {
  /** the payload bytes the caller holds: their SHA-256 must be the artefact's `digest` (check `payload`) */
  payload?: Uint8Array | string;
  /** the agent's public key the caller trusts: `agent_signature` must verify with it (check `agent_signature`) */
  agentKey?: Ed25519PublicJwk;
}

const shape: DocumentCheck = (d) =>
  requireFields([
    ['/payload_artefact_id', isNsId(d.payload_artefact_id, 'payload_artefact')],
    ['/issuer', typeof d.issuer === 'string' && d.issuer.length > 0],
    ['/kind', typeof d.kind === 'string' && KINDS.has(d.kind)],
    ['/digest', typeof d.digest === 'string' && DIGEST.test(d.digest)],
    ['/policy_decision_id', isNsId(d.policy_decision_id, 'decision')],
    ['/state', typeof d.state === 'string' && STATES.has(d.state)],
    ['/received_at', isTimestamp(d.received_at)],
    ['/decided_at', isTimestamp(d.decided_at)],
    ['/executed_at', d.executed_at === null || isTimestamp(d.executed_at)],
    ['/agent_signature', d.agent_signature === null || isRecord(d.agent_signature)],
    ['/transitions', Array.isArray(d.transitions)],
  ]);

const state: DocumentCheck = (d) => {
  const rejected = d.state === 'rejected';
  const executed = d.state === 'executed';
  if (rejected !== (typeof d.reason === 'string' && REJECTION_REASONS.has(d.reason))) {
    return fail('state_inconsistent', '/reason');
  }
  if (!rejected && d.reason !== null) return fail('state_inconsistent', '/reason');
  if (executed !== (d.outcome === 'executed' || d.outcome === 'failed')) return fail('state_inconsistent', '/outcome');
  if (!executed && d.outcome !== null) return fail('state_inconsistent', '/outcome');
  if (executed !== (d.executed_at !== null)) return fail('state_inconsistent', '/executed_at');
  if (!rejected) {
    if (!isNsId(d.actor_entity_id, 'entity')) return fail('state_inconsistent', '/actor_entity_id');
    if (!isNsId(d.principal_entity_id, 'entity')) return fail('state_inconsistent', '/principal_entity_id');
  }
  const signed = d.agent_signature !== null;
  const thumbprint = d.agent_key_thumbprint;
  if (thumbprint !== null && !(typeof thumbprint === 'string' && DIGEST.test(thumbprint))) {
    return fail('malformed_document', '/agent_key_thumbprint');
  }
  // A thumbprint names the key that verified the agent's signature: none without a signature or on a rejection, and
  // a signature on a verified artefact has one (an unverifiable signature rejects the artefact).
  if ((thumbprint !== null) !== (signed && !rejected)) return fail('state_inconsistent', '/agent_key_thumbprint');
  return undefined;
};

const basket: DocumentCheck = (d) => {
  if (d.kind !== 'basket' || d.state === 'rejected') return undefined;
  return d.basket_hash === `sha-256:${String(d.digest)}` ? undefined : fail('basket_mismatch', '/basket_hash');
};

const transitions: DocumentCheck = (d) => {
  const list = d.transitions;
  if (!Array.isArray(list)) return fail('malformed_document', '/transitions');
  const expected = ['received', d.state === 'rejected' ? 'rejected' : 'verified'];
  if (d.state === 'executed') expected.push('executed');
  if (list.length !== expected.length) return fail('transitions_invalid', '/transitions');
  let previous: string | undefined;
  for (const [i, step] of list.entries()) {
    const at = member(step, 'at');
    if (member(step, 'state') !== expected[i]) return fail('transitions_invalid', `/transitions/${i}/state`);
    if (!isTimestamp(at)) return fail('malformed_document', `/transitions/${i}/at`);
    if (!isNsId(member(step, 'event_id'), 'event')) return fail('malformed_document', `/transitions/${i}/event_id`);
    if (!isNsId(member(step, 'audit_ref'), 'audit')) return fail('malformed_document', `/transitions/${i}/audit_ref`);
    if (previous !== undefined && before(at, previous)) return fail('transitions_invalid', `/transitions/${i}/at`);
    previous = at;
  }
  const received = String(d.received_at);
  const decided = String(d.decided_at);
  if (before(decided, received)) return fail('transitions_invalid', '/decided_at');
  if (typeof d.executed_at === 'string' && before(d.executed_at, decided)) {
    return fail('transitions_invalid', '/executed_at');
  }
  return undefined;
};

async function payloadCheck(doc: unknown, payload: Uint8Array | string): Promise<PreviewCheck> {
  const bytes = typeof payload === 'string' ? new TextEncoder().encode(payload) : payload;
  const hash = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new Uint8Array(bytes)));
  let digest: unknown;
  try {
    digest = isRecord(doc) ? doc.digest : undefined;
  } catch {
    return { check: 'payload', valid: false, failure: 'malformed_document' };
  }
  return digest === encodeBase64Url(hash)
    ? { check: 'payload', valid: true }
    : { check: 'payload', valid: false, failure: 'payload_digest_mismatch', detail: '/digest' };
}

/** The agent's signature over `{ schema_version, kind, digest, policy_decision_id }`, with the caller's agent key. */
async function agentSignatureCheck(doc: unknown, agentKey: Ed25519PublicJwk): Promise<PreviewCheck> {
  const outcome = await agentSignatureOutcome(doc, agentKey).catch(() => fail('malformed_document'));
  return outcome === undefined
    ? { check: 'agent_signature', valid: true }
    : { check: 'agent_signature', valid: false, ...outcome };
}

async function agentSignatureOutcome(doc: unknown, agentKey: Ed25519PublicJwk): Promise<CheckOutcome> {
  if (!isRecord(doc) || !isRecord(doc.agent_signature)) return fail('agent_signature_missing', '/agent_signature');
  const signature = doc.agent_signature;
  const statement = {
    schema_version: PAYLOAD_ARTEFACT_STATEMENT_SCHEMA,
    kind: doc.kind,
    digest: doc.digest,
    policy_decision_id: doc.policy_decision_id,
    signature,
  };
  // The key is the caller's, under the kid the signature names only so that the lookup finds it.
  const keyId = typeof signature.key_id === 'string' ? signature.key_id : '';
  const result = await verifyDocument(statement, { keys: [{ ...agentKey, kid: keyId }] });
  if (!result.valid) return fail('agent_signature_invalid', `/agent_signature (${result.failure ?? 'invalid'})`);
  // the service's record of the key that verified it (none on a rejected artefact) must be this key
  const thumbprint = await jwkThumbprint(agentKey);
  if (doc.agent_key_thumbprint !== null && doc.agent_key_thumbprint !== thumbprint) {
    return fail('agent_signature_invalid', '/agent_key_thumbprint');
  }
  return undefined;
}

export async function verifyPayloadArtefact(
  artefact: unknown,
  trusted: TrustedKeySource,
  options: VerifyPayloadArtefactOptions = {},
): Promise<PreviewVerificationResult> {
  const result = await verifyPreviewDocument(artefact, trusted, PAYLOAD_ARTEFACT_SCHEMA, [
    ['shape', shape],
    ['state', state],
    ['basket', basket],
    ['transitions', transitions],
  ]);
  const extra: PreviewCheck[] = [];
  if (options.payload !== undefined) extra.push(await payloadCheck(artefact, options.payload));
  if (options.agentKey !== undefined) extra.push(await agentSignatureCheck(artefact, options.agentKey));
  if (extra.length === 0) return result;
  const checks = [...result.checks, ...extra];
  return { ...result, checks, valid: checks.every((c) => c.valid) };
}
