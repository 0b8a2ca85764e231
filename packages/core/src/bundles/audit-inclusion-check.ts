/**
 * audit_inclusion: the decision's audit entry (the exact bytes the evidence pack carries) is leaf `leaf_index` of
 * the tree the bundle's checkpoint signs, by the bundle's own inclusion proof (RFC 9162), and that entry is the
 * decision's. The checkpoint's signature is checkpoint_signature's question; here its root is what is proved against.
 */
import { ownValue } from '../decide/guards.ts';
import { utf8Encode } from '../encoding/utf8.ts';
import { parseAuditEntryText } from '../evidence/audit-entry-json.ts';
import { parseCheckpointJson, type CheckpointJson } from '../merkle/checkpoint-json.ts';
import { encodeBase64 } from '../merkle/base64.ts';
import { leafHash } from '../merkle/hashing.ts';
import {
  parseInclusionProofJson,
  verifyInclusionProofJson,
  type InclusionProofJson,
} from '../merkle/inclusion-proof-json.ts';
import type { BundleContext } from './bundle-context.ts';
import type { BundleCheckOutcome } from './bundle-verification.ts';

export function checkAuditInclusion(ctx: BundleContext): BundleCheckOutcome {
  const raw = ctx.part('inclusion_proof');
  let proof: InclusionProofJson;
  let checkpoint: CheckpointJson;
  try {
    proof = parseInclusionProofJson(raw);
  } catch {
    return 'the inclusion proof is missing or malformed';
  }
  try {
    checkpoint = parseCheckpointJson(ctx.part('checkpoint'));
  } catch {
    return 'there is no checkpoint to prove the entry against';
  }
  const text = ownValue(ctx.pack, 'audit_entry');
  const entry = parseAuditEntryText(text);
  if (entry === undefined || typeof text !== 'string') return 'the evidence pack carries no audit entry';
  if (entry.subject_ref !== ownValue(ctx.pack, 'policy_decision_id')) return "the audit entry is not the decision's";
  if (proof.tree_size !== checkpoint.size) {
    return `the proof is for a tree of ${proof.tree_size} entries, the checkpoint signs ${checkpoint.size}`;
  }
  if (proof.leaf_index !== entry.index) return `the proof is for leaf ${proof.leaf_index}, the entry is ${entry.index}`;
  if (proof.leaf_hash !== encodeBase64(leafHash(utf8Encode(text)))) return "the proof's leaf hash is not the entry's";
  const result = verifyInclusionProofJson(raw, checkpoint.root_hash);
  if (!result.valid) return `the inclusion proof does not reach the checkpoint root (${result.failure})`;
  return { ok: true, detail: `entry ${entry.index} is in the tree of ${checkpoint.size} the checkpoint signs` };
}
