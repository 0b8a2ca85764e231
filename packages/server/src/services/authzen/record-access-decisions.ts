/**
 * Signs and records generic-domain decisions (CONTRACT section 20): each `ns.access_decision.v1` is signed with the
 * service key, stored write-once in `access_decisions` (migration 0021) and committed to by an audit entry of kind
 * `access_decision` whose record is the signed document, all in ONE write unit per request (a batch of fifty pays one
 * transaction, not fifty), before the answer leaves. No decision is answered that is not recorded: a failed write
 * fails the request (503 `audit_unavailable`), never a decision without its entry.
 */
import { canonicalJson, signDocument, type DocumentSignature } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { digestOfCanonical } from '../../audit/audit-entry.ts';
import { auditOf } from '../../store/write-queue.ts';
import { ACCESS_DECISION_ENTRY_KIND, type UnsignedAccessDecision } from './access-decision.ts';

export type SignedAccessDecision = UnsignedAccessDecision & { signature: DocumentSignature };

export async function recordAccessDecisions(
  ctx: AppContext,
  decisions: readonly UnsignedAccessDecision[],
): Promise<SignedAccessDecision[]> {
  if (decisions.length === 0) return [];
  const signer = ctx.keys.current();
  const signed = await Promise.all(decisions.map((d) => signDocument(d, signer)));
  const texts = signed.map((d) => canonicalJson(d));
  await ctx.writer.run(async (trx) => {
    const audit = auditOf(trx);
    for (const [i, doc] of signed.entries()) {
      await audit.append({
        kind: ACCESS_DECISION_ENTRY_KIND,
        subject_ref: doc.access_decision_id,
        occurred_at: doc.decided_at,
        audit_id: doc.audit_ref,
        record_digest: digestOfCanonical(texts[i]!),
      });
    }
    await trx
      .insertInto('access_decisions')
      .values(
        signed.map((doc, i) => ({
          access_decision_id: doc.access_decision_id,
          audit_id: doc.audit_ref,
          decided_at: doc.decided_at,
          document: texts[i]!,
        })),
      )
      .execute();
  });
  return signed;
}
