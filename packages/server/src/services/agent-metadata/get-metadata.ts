/** `GET /v1/entities/{id}/metadata-attestations/current` (preview, issue 30): the agent's current attestation. */
import { AarError, parseEntityId } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { attestationView, type AttestationView } from './attestation-row.ts';
import { latestAttestationRow } from './current-metadata.ts';

export async function getCurrentAttestation(ctx: AppContext, pathId: string): Promise<AttestationView> {
  const agentId = parseEntityId(pathId, '/id', ['agent']).id;
  const row = await latestAttestationRow(ctx.store.db, agentId);
  if (!row) throw new AarError('not_found', `agent \`${agentId}\` has attested no metadata`);
  return attestationView(row);
}
