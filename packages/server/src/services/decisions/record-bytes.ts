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

/**
 * The UTF-8 bytes of the policy set texts met lately, by digest: every decision under one policy set hashes the same
 * ~40 KB, and encoding it once instead of at every decision saves a tenth of that hash (bench/RESULTS.md, session
 * 16). Keyed by the digest and used only for the very text it was made from; bounded, oldest out.
 */
const encodedTexts = new Map<string, { text: string; bytes: Buffer }>();
const ENCODED_TEXTS_KEPT = 16;

function encodedText(policySet: StoredPolicySetText): Buffer {
  const known = encodedTexts.get(policySet.digest);
  // the same string object in the common case: V8 compares the pointers first
  if (known !== undefined && known.text === policySet.text) return known.bytes;
  const bytes = Buffer.from(policySet.text, 'utf8');
  if (encodedTexts.size >= ENCODED_TEXTS_KEPT) encodedTexts.delete(encodedTexts.keys().next().value as string);
  encodedTexts.set(policySet.digest, { text: policySet.text, bytes });
  return bytes;
}

export function decisionRecordBytes(text: string, policySet?: StoredPolicySetText): DecisionRecordBytes {
  const at = policySet === undefined ? -1 : text.indexOf(POLICY_SET_MARKER);
  if (policySet === undefined || at < 0) return { record: encodeDecisionRecord(text), digest: digestOfCanonical(text) };
  const before = text.slice(0, at);
  const after = text.slice(at + POLICY_SET_MARKER.length);
  if (after.includes(POLICY_SET_MARKER)) throw new Error('decision record: the policy set marker occurs twice');
  const hash = createHash('sha256').update(before, 'utf8').update(encodedText(policySet)).update(after, 'utf8');
  return {
    record: encodeDecisionRecordNaming(before, after, policySet),
    digest: `sha-256:${hash.digest('base64url')}`,
  };
}
