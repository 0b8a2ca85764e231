/**
 * `GET /v1/payload-artefacts/{id}` and `GET /v1/payload-artefacts?policy_decision_id=` (CONTRACT section 22): the
 * signed `ns.payload_artefact.v1`, as the artefact stands now. Readers: admin, runtime, auditor.
 */
import { AarError, parseMintedId } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { toPage, type Page, type PageRequest } from '../../routes/pagination.ts';
import { artefactDocument, transitionsOf, type ArtefactDocument } from './artefact-document.ts';
import { parseArtefactId } from './artefact-ids.ts';

export async function getArtefact(ctx: AppContext, rawId: string): Promise<ArtefactDocument> {
  const id = parseArtefactId(rawId, '/params/id');
  const row = await ctx.store.db
    .selectFrom('payload_artefacts')
    .selectAll()
    .where('payload_artefact_id', '=', id)
    .executeTakeFirst();
  if (!row) throw new AarError('not_found', `payload artefact \`${id}\` does not exist`);
  return artefactDocument(ctx, row, await transitionsOf(ctx.store.db, id));
}

/** A decision's artefacts, oldest first (one index range: payload_artefacts_decision). */
export async function listArtefacts(
  ctx: AppContext,
  rawDecisionId: string,
  page: PageRequest,
): Promise<Page<ArtefactDocument>> {
  const decisionId = parseMintedId('decision', rawDecisionId, '/query/policy_decision_id');
  const rows = await ctx.store.db
    .selectFrom('payload_artefacts')
    .selectAll()
    .where('policy_decision_id', '=', decisionId)
    .where('seq', '>', page.afterSeq)
    .orderBy('seq')
    .limit(page.limit + 1)
    .execute();
  const numbered = rows.map((r) => ({ ...r, seq: Number(r.seq) }));
  const shown = toPage(numbered, page.limit, (r) => r);
  const items: ArtefactDocument[] = [];
  for (const row of shown.items) {
    items.push(await artefactDocument(ctx, row, await transitionsOf(ctx.store.db, row.payload_artefact_id)));
  }
  return { items, next_cursor: shown.next_cursor };
}
