/**
 * Assembles, signs and stores the evidence pack of one decision (`ns.evidence_pack.v1`), on first request: from the
 * decision row (request, snapshot, now, result, engine version, signed map), the decision's audit entry bytes, an
 * inclusion proof from the stored nodes and the latest checkpoint covering the entry (signed now if none does yet),
 * and the mandates its grants were made from (pack-mandates.ts).
 * INVARIANT: a pack is stored write-once before it is served, and every request gets the stored bytes: two requests
 * racing to assemble it store one of their packs, and both answer with that one.
 * INVARIANT: the service never signs a pack whose record does not re-derive its audit entry's digest.
 */
import {
  AarError,
  EVIDENCE_PACK_SCHEMA,
  auditRecordDigest,
  buildDecisionRecord,
  canonicalJson,
  parseAuditEntryText,
  signDocument,
  type UnsignedEvidencePack,
} from '@aar/core';
import type { Selectable } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { proveInclusion } from '../../audit/audit-proofs.ts';
import { checkpointCovering } from '../../audit/checkpoints.ts';
import type { DecisionsTable } from '../../store/index.ts';
import { preloadPolicySetTexts } from '../decisions/policy-set-texts.ts';
import { decisionPartsOf } from '../decisions/stored-decision.ts';
import { packMandates } from './pack-mandates.ts';
import { packAttestation } from '../agent-metadata/pack-attestation.ts';

export async function readStoredEvidencePack(ctx: AppContext, evidencePackId: string): Promise<string | undefined> {
  const row = await ctx.store.db
    .selectFrom('evidence_packs')
    .select('document')
    .where('evidence_pack_id', '=', evidencePackId)
    .executeTakeFirst();
  return row?.document;
}

/** The stored pack's exact text (RFC 8785 JSON). */
export async function assembleEvidencePack(
  ctx: AppContext,
  decision: Selectable<DecisionsTable>,
  evidencePackId: string,
): Promise<string> {
  const db = ctx.store.db;
  const entryRow = await db
    .selectFrom('audit_entries')
    .select(['idx', 'entry'])
    .where('audit_id', '=', decision.audit_ref)
    .executeTakeFirst();
  if (!entryRow) {
    throw new AarError('internal', `decision \`${decision.policy_decision_id}\` has no audit entry`);
  }
  const index = Number(entryRow.idx);
  const checkpoint = await checkpointCovering(ctx, index);
  const inclusionProof = await proveInclusion(db, index, checkpoint.size, checkpoint.size);

  await preloadPolicySetTexts(db, [decision.record]);
  const parts = decisionPartsOf(decision);
  const fields = {
    policy_decision_id: decision.policy_decision_id,
    request: parts.request,
    snapshot: parts.snapshot,
    now: decision.now,
    result: parts.result,
    engine_version: decision.engine_version,
    decision_map: parts.decision_map as unknown as UnsignedEvidencePack['decision_map'],
  };
  const committed = parseAuditEntryText(entryRow.entry)?.record_digest;
  if (committed !== auditRecordDigest(buildDecisionRecord(fields))) {
    // Decisions recorded before the chain committed to decision records (none in a release) have no pack.
    throw new AarError(
      'conflict',
      `the audit entry of decision \`${decision.policy_decision_id}\` does not commit to its record: no pack can prove it`,
    );
  }
  const unsigned: UnsignedEvidencePack = {
    schema_version: EVIDENCE_PACK_SCHEMA,
    evidence_pack_id: evidencePackId,
    policy_decision_id: fields.policy_decision_id,
    issued_at: ctx.clock.now().toISOString(),
    issuer: ctx.config.issuerUrl,
    decision: fields.result,
    decision_map: fields.decision_map,
    request: fields.request,
    snapshot: fields.snapshot,
    now: fields.now,
    engine_version: fields.engine_version,
    audit_entry: entryRow.entry,
    inclusion_proof: inclusionProof,
    checkpoint,
  };
  // issue 29: the mandates the snapshot's grants were made from, with the presented closed mandate (pack-mandates.ts)
  const mandates = await packMandates(ctx, fields.snapshot, fields.request);
  if (mandates) unsigned.mandates = mandates;
  // issue 30: the agent's signed metadata attestation the snapshot names (agent-metadata/pack-attestation.ts)
  const attestation = await packAttestation(ctx, fields.snapshot);
  if (attestation) unsigned.agent_metadata_attestation = attestation;
  const text = canonicalJson(await signDocument(unsigned, ctx.keys.current()));
  await ctx.writer.run(async (trx) => {
    // Insert only when absent: the SQLite guard refuses any insert of an existing key, ON CONFLICT or not
    // (store/migrations/write-once-guards.ts); ON CONFLICT still settles a race between PostgreSQL instances.
    const existing = await trx
      .selectFrom('evidence_packs')
      .select('evidence_pack_id')
      .where((eb) =>
        eb.or([
          eb('evidence_pack_id', '=', evidencePackId),
          eb('policy_decision_id', '=', decision.policy_decision_id),
        ]),
      )
      .executeTakeFirst();
    if (existing) return;
    await trx
      .insertInto('evidence_packs')
      .values({
        evidence_pack_id: evidencePackId,
        policy_decision_id: decision.policy_decision_id,
        document: text,
        created_at: unsigned.issued_at,
      })
      .onConflict((oc) => oc.doNothing())
      .execute();
  });
  const stored = await readStoredEvidencePack(ctx, evidencePackId);
  if (stored === undefined) throw new AarError('internal', `evidence pack \`${evidencePackId}\` was not stored`);
  return stored;
}
