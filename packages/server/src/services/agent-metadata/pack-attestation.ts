/**
 * The `agent_metadata_attestation` member of an evidence pack (issue 30): the signed document the decision's snapshot
 * names (`snapshot.agent_metadata.attestation_id` and `digest`), exactly as the agent signed it. Core's
 * verify-pack-agent-metadata.ts checks it offline against the agent key in the snapshot.
 * INVARIANT: a row that is gone or whose digest is not the snapshot's (never, in a genuine store) gives no member:
 * the pack is still served and its `agent_metadata` check fails (`agent_metadata_missing`), rather than the service
 * signing a document the decision did not read.
 */
import type { AgentMetadataAttestation } from '@aar/core';
import type { AppContext } from '../../app-context.ts';

export async function packAttestation(
  ctx: AppContext,
  snapshot: unknown,
): Promise<AgentMetadataAttestation | undefined> {
  const attested = isRecord(snapshot) ? snapshot.agent_metadata : undefined;
  if (!isRecord(attested) || typeof attested.attestation_id !== 'string') return undefined;
  const row = await ctx.store.db
    .selectFrom('agent_metadata_attestations')
    .select(['document', 'digest'])
    .where('attestation_id', '=', attested.attestation_id)
    .executeTakeFirst();
  if (!row || row.digest !== attested.digest) return undefined;
  return JSON.parse(row.document) as AgentMetadataAttestation;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
