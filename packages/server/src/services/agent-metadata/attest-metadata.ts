/**
 * `POST /v1/entities/{id}/metadata-attestations` (preview, issue 30): an agent's `ns.agent_metadata_attestation.v1`,
 * signed with the agent's OWN registered Ed25519 key, becomes its current metadata.
 * Attacker assumptions: the caller holds a runtime or admin token but not necessarily the agent's key, and chooses
 * every byte of the document. So the key is the one registered on the entity (the document's `key_id` is never used
 * to find one), the document must name the agent of the path, and it must be fresh (its `issued_at` within the
 * signature window of now) and newer than the agent's current attestation: a captured older document re-posted later
 * cannot roll the agent's metadata back. A refused document writes nothing.
 * The row, its `ns.entity.metadata_attested` event and audit entry are written in one write-queue transaction.
 */
import {
  AarError,
  agentMetadataDigest,
  canonicalJson,
  fieldError,
  parseEntityId,
  verifyAgentMetadataAttestation,
  type AgentMetadataAttestation,
  type Ed25519PublicJwk,
} from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { appendEvent } from '../events/append-event.ts';
import { isUniqueViolation } from '../unique-violation.ts';
import { ATTESTATION_ID_PREFIX, attestationView, type AttestationView } from './attestation-row.ts';

export const METADATA_ATTESTED = 'ns.entity.metadata_attested';

export async function attestAgentMetadata(
  ctx: AppContext,
  credential: Credential | null,
  pathId: string,
  doc: AgentMetadataAttestation,
): Promise<AttestationView> {
  const agentId = parseEntityId(pathId, '/id', ['agent']).id;
  // exactly the canonical id (offline verifiers compare it with the snapshot's actor byte for byte)
  if (doc.agent_entity_id !== agentId) {
    throw fieldError('invalid_request', '/agent_entity_id', `must be \`${agentId}\`, the agent of the path`);
  }
  const entity = await ctx.store.db
    .selectFrom('entities')
    .select(['entity_id', 'type', 'state', 'public_key_jwk'])
    .where('entity_id', '=', agentId)
    .executeTakeFirst();
  if (!entity) throw new AarError('not_found', `agent \`${agentId}\` is not registered`);
  if (entity.state === 'tombstoned') {
    throw fieldError('reference_invalid', '/agent_entity_id', 'the agent is erased');
  }
  if (!entity.public_key_jwk) {
    throw fieldError('reference_invalid', '/agent_entity_id', 'the agent has no registered key to attest with');
  }
  const keyText = entity.public_key_jwk;
  const key = JSON.parse(keyText) as Ed25519PublicJwk;
  // the key registered for the path's agent, never one the document names
  const verified = await verifyAgentMetadataAttestation(doc, agentId, key);
  if (!verified.valid) {
    throw fieldError(
      'invalid_signature',
      '/signature',
      `does not verify with the agent's registered key (${verified.failure})`,
    );
  }
  const now = ctx.clock.now();
  const issued = Date.parse(doc.issued_at);
  const window = ctx.config.signatureWindowSeconds * 1000;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/.test(doc.issued_at) || Number.isNaN(issued)) {
    throw fieldError('invalid_request', '/issued_at', 'must be an ISO 8601 UTC timestamp');
  }
  if (Math.abs(now.getTime() - issued) > window) {
    throw fieldError(
      'invalid_request',
      '/issued_at',
      `must be within ${ctx.config.signatureWindowSeconds} s of the service's time`,
    );
  }
  const document = canonicalJson(doc);
  const digest = agentMetadataDigest(doc);
  const attestationId = `${ATTESTATION_ID_PREFIX}${ctx.newUuid()}`;
  try {
    return await ctx.writer.run(async (trx) => {
      const current = await trx
        .selectFrom('agent_metadata_attestations')
        .select(['issued_at', 'digest'])
        .where('agent_entity_id', '=', agentId)
        .orderBy('created_at', 'desc')
        .orderBy('attestation_id', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (current?.digest === digest)
        throw fieldError('conflict', '/signature', 'this attestation was accepted already');
      if (current && Date.parse(current.issued_at) >= issued) {
        throw fieldError('conflict', '/issued_at', 'must be later than the agent\u2019s current attestation');
      }
      const event = await appendEvent(trx, ctx, {
        event_type: METADATA_ATTESTED,
        actor_entity_id: actorOf(credential),
        principal_entity_id: null,
        subject_ref: agentId,
        reason_code: 'agent_metadata_attested',
        data: { attestation_id: attestationId, digest, issued_at: new Date(issued).toISOString() },
      });
      const row = {
        attestation_id: attestationId,
        agent_entity_id: agentId,
        digest,
        document,
        model: doc.model,
        software_version: doc.software_version,
        operator: doc.operator,
        issued_at: doc.issued_at,
        public_key_jwk: canonicalJson(key),
        created_at: event.occurred_at,
      };
      const stored = await trx
        .insertInto('agent_metadata_attestations')
        .values({ ...row, audit_id: event.audit_ref })
        .returningAll()
        .executeTakeFirstOrThrow();
      return attestationView(stored);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw fieldError('conflict', '/signature', 'this attestation was accepted already');
    throw error;
  }
}
