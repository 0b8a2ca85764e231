/**
 * Offline verification and replay of an evidence pack (SPEC "Evidence verification result", CONTRACT sections 4
 * and 8). Pure and isomorphic: the only inputs are the pack, the issuer's JWKS and options; it runs unchanged in the
 * server, the CLI and a browser.
 * Attacker assumption: the pack is anything at all (edited, truncated, another log's, another key's). Every check
 * runs and reports its own failure code; nothing throws. Keys come only from the caller's JWKS (never from the pack,
 * whose `issuer` is a hint).
 */
import { isRecord, ownValue } from '../decide/guards.ts';
import { encodeBase64 } from '../encoding/base64.ts';
import { utf8Encode } from '../encoding/utf8.ts';
import { parseCheckpointJson, type CheckpointJson } from '../merkle/checkpoint-json.ts';
import { leafHash } from '../merkle/hashing.ts';
import {
  parseInclusionProofJson,
  verifyInclusionProofJson,
  type InclusionProofJson,
} from '../merkle/inclusion-proof-json.ts';
import { verifyDocument, type TrustedKeys } from '../signing/verify-document.ts';
import { parseAuditEntryText, type AuditEntryJson } from './audit-entry-json.ts';
import { auditRecordDigest, buildDecisionRecord } from './decision-record.ts';
import { EVIDENCE_PACK_SCHEMA } from './evidence-pack.ts';
import { replayDecision } from './replay-decision.ts';
import { checkPackAgentMetadata } from './verify-pack-agent-metadata.ts';
import { checkPackMandates } from './verify-pack-mandates.ts';
import { checkPolicySet } from './verify-policy-set.ts';
import type {
  EvidenceCheck,
  EvidenceCheckName,
  EvidenceVerificationResult,
  ReplayDecision,
  VerifyEvidencePackOptions,
} from './verification-result.ts';

type Outcome = true | string;

export async function verifyEvidencePack(
  pack: unknown,
  jwks: TrustedKeys,
  options: VerifyEvidencePackOptions = {},
): Promise<EvidenceVerificationResult> {
  try {
    return await verify(pack, jwks, options);
  } catch {
    // Only hostile shapes get here (throwing getters, proxies): a refusal either way.
    return {
      valid: false,
      algorithm: 'ed25519',
      key_id: null,
      replay_decision: null,
      checks: [{ check: 'pack_signature', valid: false, failure: 'malformed_pack' }],
    };
  }
}

async function verify(
  pack: unknown,
  jwks: TrustedKeys,
  options: VerifyEvidencePackOptions,
): Promise<EvidenceVerificationResult> {
  const checks: EvidenceCheck[] = [];
  const record = (check: EvidenceCheckName, outcome: Outcome): void => {
    checks.push(outcome === true ? { check, valid: true } : { check, valid: false, failure: outcome });
  };
  const field = (name: string): unknown => ownValue(pack, name);

  const packSignature = await verifyDocument(pack, jwks);
  record('pack_signature', packSignature.valid || (packSignature.failure ?? 'signature_mismatch'));

  const map = field('decision_map');
  const mapSignature = await verifyDocument(map, jwks);
  record('decision_map_signature', mapSignature.valid || (mapSignature.failure ?? 'signature_mismatch'));

  record(
    'bindings',
    guarded(() => checkBindings(pack, map)),
  );

  const entryText = field('audit_entry');
  const entry = parseAuditEntryText(entryText);
  const proof = tryParse(() => parseInclusionProofJson(field('inclusion_proof')));
  record(
    'audit_entry',
    guarded(() => checkEntry(entryText, entry, proof, map)),
  );

  record(
    'record_digest',
    guarded(() => checkRecordDigest(pack, entry)),
  );

  const checkpoint = tryParse(() => parseCheckpointJson(field('checkpoint')));
  record(
    'inclusion_proof',
    guarded(() => checkInclusion(field('inclusion_proof'), proof, checkpoint)),
  );

  record('checkpoint', await guardedAsync(() => checkCheckpoint(field('checkpoint'), checkpoint, jwks, options)));

  // aar-decide/1.3.0: the rule packs replay runs must be the published, signed ones the map names
  const policySet = await guardedAsync(async () => (await checkPolicySet(field('snapshot'), map, jwks)) ?? true);
  if (policySet !== true || hasPolicySet(field('snapshot'), map)) record('policy_set', policySet);

  // issue 29: the mandates and allowances the snapshot's grants were made from, and their signatures
  const mandates = await guardedAsync(async () => (await checkPackMandates(pack)) ?? 'not_applicable');
  if (mandates !== 'not_applicable') record('mandates', mandates);

  // issue 30 (aar-decide/1.5.0): the agent's signed metadata attestation, its key and digest bound by the snapshot
  const metadata = await guardedAsync(async () => (await checkPackAgentMetadata(pack)) ?? 'not_applicable');
  if (metadata !== 'not_applicable') record('agent_metadata', metadata);

  let replay: ReplayDecision | null = null;
  const request = field('request');
  const snapshot = field('snapshot');
  const now = field('now');
  if (isRecord(request) && isRecord(snapshot) && typeof now === 'string') {
    replay = replayDecision(request, snapshot, now, field('decision'), field('engine_version'));
    record('replay', replay.matches || 'replay_mismatch');
  } else {
    record('replay', 'malformed_pack');
  }

  return {
    valid: checks.every((c) => c.valid),
    algorithm: 'ed25519',
    key_id: packSignature.key_id ?? null,
    replay_decision: replay,
    checks,
  };
}

function checkBindings(pack: unknown, map: unknown): Outcome {
  if (!isRecord(pack) || pack.schema_version !== EVIDENCE_PACK_SCHEMA) return 'malformed_pack';
  const decision = ownValue(pack, 'decision');
  if (!isRecord(map) || !isRecord(decision)) return 'malformed_pack';
  if (typeof pack.policy_decision_id !== 'string' || map.policy_decision_id !== pack.policy_decision_id) {
    return 'decision_mismatch';
  }
  if (map.decision !== decision.decision || map.reason !== decision.reason) return 'decision_mismatch';
  const refs = map.evidence_refs;
  if (typeof pack.evidence_pack_id !== 'string' || !Array.isArray(refs) || !refs.includes(pack.evidence_pack_id)) {
    return 'evidence_ref_mismatch';
  }
  return true;
}

function checkEntry(
  text: unknown,
  entry: AuditEntryJson | undefined,
  proof: InclusionProofJson | undefined,
  map: unknown,
): Outcome {
  if (entry === undefined || typeof text !== 'string') return 'malformed_entry';
  if (proof === undefined) return 'malformed_pack';
  if (entry.index !== proof.leaf_index) return 'index_mismatch';
  if (encodeBase64(leafHash(utf8Encode(text))) !== proof.leaf_hash) return 'leaf_hash_mismatch';
  if (!isRecord(map) || map.audit_ref !== entry.audit_id) return 'audit_ref_mismatch';
  return true;
}

function checkRecordDigest(pack: unknown, entry: AuditEntryJson | undefined): Outcome {
  if (entry === undefined) return 'malformed_entry';
  const get = (name: string) => ownValue(pack, name);
  const digest = auditRecordDigest(
    buildDecisionRecord({
      policy_decision_id: get('policy_decision_id') as string,
      request: get('request') as never,
      snapshot: get('snapshot') as never,
      now: get('now') as string,
      result: get('decision') as never,
      engine_version: get('engine_version') as string,
      decision_map: get('decision_map') as object,
    }),
  );
  return digest === entry.record_digest || 'digest_mismatch';
}

function checkInclusion(
  raw: unknown,
  proof: InclusionProofJson | undefined,
  checkpoint: CheckpointJson | undefined,
): Outcome {
  if (proof === undefined) return 'malformed_pack';
  if (checkpoint === undefined) return 'malformed_checkpoint';
  if (proof.tree_size !== checkpoint.size) return 'tree_size_mismatch';
  const result = verifyInclusionProofJson(raw, checkpoint.root_hash);
  return result.valid || result.failure;
}

async function checkCheckpoint(
  raw: unknown,
  checkpoint: CheckpointJson | undefined,
  jwks: TrustedKeys,
  options: VerifyEvidencePackOptions,
): Promise<Outcome> {
  if (checkpoint === undefined) return 'malformed_checkpoint';
  // A checkpoint of another log proves nothing about this one, even when the same key signed it.
  if (options.origin !== undefined && checkpoint.origin !== options.origin) return 'origin_mismatch';
  const signature = await verifyDocument(raw, jwks);
  return signature.valid || (signature.failure ?? 'signature_mismatch');
}

function hasPolicySet(snapshot: unknown, map: unknown): boolean {
  if (isRecord(snapshot) && snapshot.policy_set !== undefined) return true;
  const nodes: unknown = isRecord(map) ? map.nodes : undefined;
  return (
    Array.isArray(nodes) && nodes.some((node) => isRecord(node) && node.type === 'policy' && node.packs !== undefined)
  );
}

function tryParse<T>(parse: () => T): T | undefined {
  try {
    return parse();
  } catch {
    return undefined;
  }
}

function guarded(check: () => Outcome): Outcome {
  try {
    return check();
  } catch {
    return 'malformed_pack';
  }
}

async function guardedAsync(check: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await check();
  } catch {
    return 'malformed_pack';
  }
}
