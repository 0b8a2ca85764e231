/**
 * A decision record's stored bytes and its `record_digest`, from its canonical text. When the policy set text is
 * stored once (policy-set-texts.ts), the caller canonicalises the record with POLICY_SET_MARKER standing for that
 * text (policy-set-text.ts), so the ~40 KB text is never copied into, searched in or sliced out of a record string:
 * the digest hashes `before || text || after` incrementally and the blob compresses `before || after` (codec 2).
 * INVARIANT: RFC 8785 escapes every control character, so a canonical text never holds a raw U+0000; the marker can
 * only be the one the caller put there, and a text with none (canonicalisation fell back to the full record) is
 * written whole.
 */
import { createHash } from 'node:crypto';
import { digestOfCanonical } from '../../audit/audit-entry.ts';
import { encodeDecisionRecord, encodeDecisionRecordNaming, type StoredPolicySetText } from './record-codec.ts';

export const POLICY_SET_MARKER = '\u0000';

export interface DecisionRecordBytes {
  /** `decisions.record` */
  record: Buffer;
  /** the audit entry's `record_digest`: SHA-256 of the whole record's RFC 8785 bytes */
  digest: string;
}

export function decisionRecordBytes(text: string, policySet?: StoredPolicySetText): DecisionRecordBytes {
  const at = policySet === undefined ? -1 : text.indexOf(POLICY_SET_MARKER);
  if (policySet === undefined || at < 0) return { record: encodeDecisionRecord(text), digest: digestOfCanonical(text) };
  const before = text.slice(0, at);
  const after = text.slice(at + POLICY_SET_MARKER.length);
  if (after.includes(POLICY_SET_MARKER)) throw new Error('decision record: the policy set marker occurs twice');
  const hash = createHash('sha256').update(before, 'utf8').update(policySet.text, 'utf8').update(after, 'utf8');
  return {
    record: encodeDecisionRecordNaming(before, after, policySet),
    digest: `sha-256:${hash.digest('base64url')}`,
  };
}
