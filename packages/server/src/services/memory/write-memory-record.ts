/**
 * `POST /v1/memory/records` (CONTRACT section 22): an agent writes a memory record under its grant.
 * Order (a refusal at any step writes nothing):
 * 1. the content: bounded, no card number (memory-content.ts: 400 `invalid_request` / `pan_refused` naming the path);
 * 2. the agent's RFC 9421 signature over this request (agent-signature.ts), unless AAR_REQUIRE_SIGNED_REQUESTS is off;
 * 3. in ONE write-queue unit: the grant exists, is active (not revoked, its `valid_until` not past) and is held by
 *    this agent (422 `reference_invalid` naming `/grant_id` otherwise); principal and agent are active; the nonce is
 *    new; then the signed record, its content row, `ns.memory.written` and its audit entry. The entry commits to the
 *    event envelope, which names the record's digest (and so, transitively, the signed record) but never the content:
 *    erasure must not leave content in the audit log.
 * The principal is the grant's: an agent cannot write into another principal's memory by naming it.
 */
import { AarError, fieldError, parseEntityId, parseMintedId } from '@aar/core';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import type { MemoryClassification } from '../../store/schema-memory.ts';
import { appendEvent } from '../events/append-event.ts';
import { effectiveGrantRow, selectGrants } from '../grants/grant-rows.ts';
import { rememberNonce, verifyAgentSignature, type VerifiedAgentSignature } from './agent-signature.ts';
import { prepareContent } from './memory-content.ts';
import { MEMORY_SCHEMA_VERSION, signMemoryDocument, type UnsignedMemoryRecord } from './memory-documents.ts';
import { mintMemoryId } from './memory-ids.ts';
import { memoryRecordView, type MemoryRecordView } from './memory-view.ts';
import { CLASSIFICATIONS, RETENTION_DAYS, retainUntil } from './retention.ts';

export interface WriteMemoryInput {
  agent_entity_id: string;
  grant_id: string;
  classification: string;
  content: unknown;
}

export async function writeMemoryRecord(
  ctx: AppContext,
  credential: Credential,
  request: FastifyRequest,
  input: WriteMemoryInput,
): Promise<MemoryRecordView> {
  const agentId = parseEntityId(input.agent_entity_id, '/agent_entity_id', ['agent']).id;
  const grantId = parseMintedId('authority:grant', input.grant_id, '/grant_id');
  if (!(CLASSIFICATIONS as readonly string[]).includes(input.classification)) {
    throw fieldError('invalid_request', '/classification', `must be one of ${CLASSIFICATIONS.join(', ')}`);
  }
  const classification = input.classification as MemoryClassification;
  const content = prepareContent(input.content);
  const signature: VerifiedAgentSignature | null = ctx.config.requireSignedRequests
    ? await verifyAgentSignature(ctx, request, agentId)
    : null;

  return ctx.writer.run(async (trx) => {
    const found = await selectGrants(trx).where('grants.grant_id', '=', grantId).executeTakeFirst();
    if (!found) throw fieldError('reference_not_found', '/grant_id', `grant \`${grantId}\` does not exist`);
    const grant = effectiveGrantRow(found);
    const now = ctx.clock.now();
    if (grant.actor_entity_id !== agentId) {
      throw fieldError('reference_invalid', '/grant_id', `grant \`${grantId}\` is not held by \`${agentId}\``);
    }
    if (grant.state !== 'active') throw fieldError('reference_invalid', '/grant_id', `grant \`${grantId}\` is revoked`);
    const validUntil = (JSON.parse(grant.scope) as { valid_until?: unknown }).valid_until;
    if (typeof validUntil === 'string' && Date.parse(validUntil) <= now.getTime()) {
      throw fieldError('reference_invalid', '/grant_id', `grant \`${grantId}\` expired at ${validUntil}`);
    }
    const parties = await trx
      .selectFrom('entities')
      .select(['entity_id', 'state'])
      .where('entity_id', 'in', [grant.principal_entity_id, agentId])
      .execute();
    for (const party of [grant.principal_entity_id, agentId]) {
      if (parties.find((p) => p.entity_id === party)?.state !== 'active') {
        throw new AarError('reference_invalid', `\`${party}\` is not active`, {
          errors: [{ path: party === agentId ? '/agent_entity_id' : '/grant_id', message: 'is not active' }],
        });
      }
    }
    if (signature) await rememberNonce(trx, ctx, agentId, signature);

    const recordId = mintMemoryId('memory_record', ctx.newUuid());
    const createdAt = now.toISOString();
    const unsigned: UnsignedMemoryRecord = {
      schema_version: MEMORY_SCHEMA_VERSION,
      form: 'record',
      memory_record_id: recordId,
      issuer: ctx.config.issuerUrl,
      principal_entity_id: grant.principal_entity_id,
      agent_entity_id: agentId,
      grant_id: grantId,
      classification,
      retention_days: RETENTION_DAYS[classification],
      content_digest: content.digest,
      content_bytes: content.bytes,
      authorship: {
        method: signature ? 'rfc9421' : 'credential',
        agent_key_thumbprint: signature?.keyThumbprint ?? null,
        signed_at: signature ? new Date(signature.created * 1000).toISOString() : null,
        token_id: credential.token_id,
      },
      created_at: createdAt,
      retain_until: retainUntil(now, classification).toISOString(),
    };
    const signed = await signMemoryDocument(ctx, unsigned);
    await appendEvent(trx, ctx, {
      event_type: 'ns.memory.written',
      actor_entity_id: agentId,
      principal_entity_id: grant.principal_entity_id,
      subject_ref: recordId,
      reason_code: 'memory_written',
      data: {
        memory_record_id: recordId,
        agent_entity_id: agentId,
        grant_id: grantId,
        classification,
        content_digest: content.digest,
        record_digest: signed.digest,
        retain_until: unsigned.retain_until,
      },
    });
    const row = await trx
      .insertInto('memory_records')
      .values({
        memory_record_id: recordId,
        principal_entity_id: grant.principal_entity_id,
        agent_entity_id: agentId,
        grant_id: grantId,
        classification,
        record: signed.text,
        record_digest: signed.digest,
        content_digest: content.digest,
        retain_until: unsigned.retain_until,
        created_at: createdAt,
        state: 'active',
        tombstone_id: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('memory_contents')
      .values({ memory_record_id: recordId, content: content.text, salt: content.salt })
      .execute();
    return memoryRecordView(row, { content: content.text, salt: content.salt }, null);
  });
}
