import type { AppContext } from '../../../app-context.ts';
import { verifyAuditLog } from '../../../audit/verify-audit-log.ts';
import { failed, passed, type SelfAuditCheck } from '../self-audit-report.ts';

/** The whole chain verifies (GET /v1/audit/verify's check: hashes, links, nodes, checkpoints, stored records). */
export async function checkAuditChain(ctx: AppContext): Promise<SelfAuditCheck> {
  const v = await verifyAuditLog(ctx);
  const evidence = {
    valid: v.valid,
    size: v.size,
    checked: v.checked,
    root_hash: v.root_hash,
    checkpoint_size: v.checkpoint?.size ?? null,
    ...(v.failure === undefined ? {} : { failure: v.failure }),
    ...(v.first_invalid_index === undefined ? {} : { first_invalid_index: v.first_invalid_index }),
    ...(v.record === undefined ? {} : { record: v.record }),
    ...(v.detail === undefined ? {} : { detail: v.detail }),
  };
  if (v.valid) return passed('audit_chain_verifies', `all ${v.size} audit entries verify`, evidence);
  return failed(
    'audit_chain_verifies',
    'fail',
    `the audit chain fails verification (\`${v.failure ?? 'unknown'}\`)`,
    evidence,
    'Stop writing: the store was changed outside the service. Find what changed (`evidence` names the first entry ' +
      'and record; `aar verify-audit --jwks <the service JWKS>` checks the same store offline, against keys you ' +
      'choose), restore the store from a backup taken before it, and investigate who had database access.',
  );
}
