/**
 * The `mandates` member of an evidence pack (issue 29, DESIGN-29 section 8): for every grant of the decision's
 * snapshot chains that carries a `mandate` binding, the mandate's document as it was accepted, the issuer's JWKS the
 * service trusted (AP2) and, when the request presented a closed presentation extending that document, that
 * presentation (`presented`). Core's verify-pack-mandates.ts checks it offline.
 * WHERE `presented` COMES FROM: the request as recorded. An authorize body's `mandate` (`{ mandate_id }` or
 * `{ presentation }`) is part of the recorded request (normalize-request.ts), so the presented closing hop is in the
 * decision record the audit entry commits to; it is copied here, not stored anywhere else.
 * INVARIANT: a binding whose mandate row is gone (never, in a genuine store) gets no entry: the pack is still served
 * and its `mandates` check fails (`mandate_missing`), rather than the service signing a document it cannot find.
 */
import type { EvidenceMandate } from '@aar/core';
import type { AppContext } from '../../app-context.ts';

interface Binding {
  mandate_id: string;
  format: string;
  digest: string;
}

/** The member for a decision's snapshot and request; undefined when no grant of its chains carries a mandate. */
export async function packMandates(
  ctx: AppContext,
  snapshot: unknown,
  request: unknown,
): Promise<EvidenceMandate[] | undefined> {
  const bindings = bindingsOf(snapshot);
  if (bindings.length === 0) return undefined;
  const db = ctx.store.db;
  const ids = [...new Set(bindings.map((b) => b.mandate_id))];
  const rows = await db.selectFrom('mandates').selectAll().where('mandate_id', 'in', ids).execute();
  const issuerNames = [...new Set(rows.map((r) => r.issuer).filter((i) => i !== null))];
  const issuers = issuerNames.length
    ? await db.selectFrom('mandate_issuers').select(['issuer', 'jwks']).where('issuer', 'in', issuerNames).execute()
    : [];
  const presentation = presentationOf(request);
  const out: EvidenceMandate[] = [];
  for (const id of ids) {
    const row = rows.find((r) => r.mandate_id === id);
    if (!row) continue;
    const jwks = issuers.find((i) => i.issuer === row.issuer)?.jwks;
    out.push({
      mandate_id: row.mandate_id,
      format: row.format,
      digest: row.digest,
      document: row.document,
      ...(row.issuer !== null ? { issuer: row.issuer } : {}),
      ...(jwks !== undefined ? { issuer_jwks: { keys: keysOf(jwks) } } : {}),
      ...(row.format === 'ap2' && presentation?.startsWith(`${row.document}~`) ? { presented: presentation } : {}),
    });
  }
  return out;
}

/** Every `mandate` binding of the snapshot's chains (`grants` and each of `alternatives`). */
function bindingsOf(snapshot: unknown): Binding[] {
  const s = snapshot as { grants?: unknown; alternatives?: unknown } | null;
  if (!s || typeof s !== 'object') return [];
  const chains = [s.grants, ...(Array.isArray(s.alternatives) ? s.alternatives : [])];
  const out: Binding[] = [];
  for (const chain of chains) {
    if (!Array.isArray(chain)) continue;
    for (const grant of chain as Array<{ mandate?: Binding }>) {
      if (grant?.mandate && typeof grant.mandate.mandate_id === 'string') out.push(grant.mandate);
    }
  }
  return out;
}

function presentationOf(request: unknown): string | undefined {
  const presentation = (request as { mandate?: { presentation?: unknown } } | null)?.mandate?.presentation;
  return typeof presentation === 'string' ? presentation : undefined;
}

function keysOf(jwks: string): Array<Record<string, unknown>> {
  try {
    const keys = (JSON.parse(jwks) as { keys?: unknown }).keys;
    return Array.isArray(keys)
      ? keys.filter((k): k is Record<string, unknown> => typeof k === 'object' && k !== null)
      : [];
  } catch {
    return [];
  }
}
