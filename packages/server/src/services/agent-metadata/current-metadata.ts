/**
 * The agent's current metadata as authorize puts it into the snapshot (aar-decide/1.5.0, `snapshot.agent_metadata`):
 * its latest accepted attestation, read through the instance's fact cache at the version authorize read first
 * (migration 0029 moves that version on every insert, so an attestation committed before an authorize began is seen).
 * Attacker assumption: someone with SQL access may insert a row. The row's document is verified again, against the
 * key the service holds for the agent NOW (the entity's registered key); a row that does not verify, or whose
 * fields or digest differ from its document, counts as no attestation (a request presenting metadata is then denied).
 */
import {
  agentMetadataDigest,
  verifyAgentMetadataAttestation,
  type AttestedAgentMetadata,
  type Ed25519PublicJwk,
} from '@aar/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import type { EntityFact } from '../authorize/cached-facts.ts';
import type { GrantCache } from '../authorize/grant-cache.ts';
import type { AttestationRow } from './attestation-row.ts';

const KIND = 'agent_metadata';

export async function latestAttestationRow(db: Kysely<Database>, agentId: string): Promise<AttestationRow | undefined> {
  return db
    .selectFrom('agent_metadata_attestations')
    .selectAll()
    .where('agent_entity_id', '=', agentId)
    .orderBy('created_at', 'desc')
    .orderBy('attestation_id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** null when the agent attested nothing usable; cached per agent at `version`. */
export async function currentAgentMetadata(
  db: Kysely<Database>,
  cache: GrantCache,
  version: number,
  actor: EntityFact | null,
): Promise<AttestedAgentMetadata | null> {
  if (!actor || actor.type !== 'agent' || !actor.public_key_jwk) return null;
  const hit = cache.fact<AttestedAgentMetadata>(KIND, actor.entity_id, version);
  if (hit) return hit.row;
  const row = await latestAttestationRow(db, actor.entity_id);
  const attested = row ? await usable(row, actor.public_key_jwk) : null;
  cache.storeFact(KIND, actor.entity_id, version, attested);
  return attested;
}

async function usable(row: AttestationRow, keyText: string): Promise<AttestedAgentMetadata | null> {
  let doc: Record<string, unknown>;
  let key: Ed25519PublicJwk;
  try {
    doc = JSON.parse(row.document) as Record<string, unknown>;
    key = JSON.parse(keyText) as Ed25519PublicJwk;
  } catch {
    return null;
  }
  const verified = await verifyAgentMetadataAttestation(doc, row.agent_entity_id, key);
  if (!verified.valid || agentMetadataDigest(doc) !== row.digest) return null;
  if (doc.model !== row.model || doc.software_version !== row.software_version || doc.operator !== row.operator) {
    return null;
  }
  return {
    attestation_id: row.attestation_id,
    digest: row.digest,
    model: row.model,
    software_version: row.software_version,
    operator: row.operator,
    public_key_jwk: key as unknown as Record<string, unknown>,
  };
}
