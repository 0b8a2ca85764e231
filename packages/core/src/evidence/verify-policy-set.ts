/**
 * The rule packs an evidence pack's snapshot carries (aar-decide/1.3.0): replay re-runs decide on them, so they must
 * be the very documents the service published. Each pack document in `snapshot.policy_set` must verify against the
 * trusted keys (the service key that signs decision maps), and the decision map's `policy` node must list the same
 * packs, in the same order and mode, with the digest of exactly that document. Attacker assumption: the pack's
 * creator edited a rule in the snapshot (to make replay say what they like) or swapped a pack for another signed one.
 */
import { isRecord } from '../decide/guards.ts';
import { policyDocumentDigest } from '../rules/document-digest.ts';
import { verifyDocument, type TrustedKeys } from '../signing/verify-document.ts';

/** undefined when neither the snapshot nor the map holds a policy set (the check is then not recorded). */
export async function checkPolicySet(
  snapshot: unknown,
  map: unknown,
  jwks: TrustedKeys,
): Promise<true | string | undefined> {
  const set: unknown = isRecord(snapshot) ? snapshot.policy_set : undefined;
  const node = policyNodeOf(map);
  const listed: unknown = isRecord(node) ? node.packs : undefined;
  if (set === undefined && listed === undefined) return undefined;
  if (!isRecord(set) || !Array.isArray(set.packs) || !Array.isArray(listed)) return 'malformed_policy_set';
  if (set.packs.length !== listed.length) return 'policy_digest_mismatch';
  for (const [i, entry] of set.packs.entries()) {
    const named: unknown = listed[i];
    if (!isRecord(entry) || !isRecord(entry.document) || !isRecord(named)) return 'malformed_policy_set';
    const doc = entry.document;
    const signature = await verifyDocument(doc, jwks);
    if (!signature.valid) return 'policy_signature_invalid';
    let digest: string;
    try {
      digest = policyDocumentDigest(doc);
    } catch {
      return 'malformed_policy_set';
    }
    if (
      named.digest !== digest ||
      named.pack_id !== doc.pack_id ||
      named.version !== doc.version ||
      named.mode !== entry.mode
    ) {
      return 'policy_digest_mismatch';
    }
  }
  return true;
}

function policyNodeOf(map: unknown): unknown {
  const nodes: unknown = isRecord(map) ? map.nodes : undefined;
  return Array.isArray(nodes) ? nodes.find((node) => isRecord(node) && node.type === 'policy') : undefined;
}
