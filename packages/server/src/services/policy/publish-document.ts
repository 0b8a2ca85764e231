/**
 * `POST /v1/{rule-packs|dictionaries}/{name}/versions/{version}/publish`: a draft becomes published, immutable from
 * then on (CONTRACT section 19). The document is checked again (profile, references, everything it declares
 * published) and, for a pack, its tests run: one failing refuses the publication (422 naming `/tests/<i>`), nothing
 * written. The service signs it (CONTRACT section 4) and stores exactly the signed RFC 8785 bytes, which every read
 * then checks and serves as they are; `digest` is of the document without `signature`.
 */
import { AarError, runPackTests, type KnownPolicyTerms, type RulePackDocument } from '@aar/core';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import type { Database } from '../../store/index.ts';
import { actorOf } from '../actor-of.ts';
import { appendPublishedEvent } from './document-events.ts';
import { parseDocument, signPolicyDocument, type SignedPolicyDocument } from './document-integrity.ts';
import { summaryOf, type DocumentSummary } from './document-summary.ts';
import { knownTerms } from './known-terms.ts';
import { packDictionaries } from './pack-dictionaries.ts';
import { testsFailed } from './test-rule-pack.ts';
import { insertDocumentRow, readVersion, updateDocumentRow, type DocumentKind } from './stored-documents.ts';
import { assertValidDocument } from './validate-document.ts';

export async function publishDocument(
  ctx: AppContext,
  credential: Credential | null,
  kind: DocumentKind,
  name: string,
  version: string,
): Promise<DocumentSummary> {
  const what = `${kind.replace('_', ' ')} \`${name}@${version}\``;
  const row = await readVersion(ctx.store.db, kind, name, version);
  if (!row) throw new AarError('not_found', `${what} does not exist`);
  if (row.state !== 'draft') throw new AarError('conflict', `${what} is ${row.state} already`);
  const doc = parseDocument(row.document);
  if (!doc) throw new AarError('internal', `${what}: the stored draft is not JSON`);
  await checkPublishable(ctx, kind, doc);
  const signed = await signPolicyDocument(ctx, doc);
  await ctx.writer.run(async (trx) => {
    // the draft may have been replaced or published meanwhile: publish only what was checked
    const now = await readVersion(trx, kind, name, version);
    if (!now || now.state !== 'draft' || now.document !== row.document) {
      throw new AarError('conflict', `${what} changed while it was being published: try again`);
    }
    await writePublished(trx, ctx, kind, signed, { actor: actorOf(credential), origin: row.origin });
  });
  return summaryOf(kind, (await readVersion(ctx.store.db, kind, name, version))!);
}

/**
 * Validation against published content, and a pack's tests: what publishing (and seeding) requires. `known`: the
 * published terms read beforehand (seeding checks a batch against one reading, as nothing is written in between).
 */
export async function checkPublishable(
  ctx: AppContext,
  kind: DocumentKind,
  doc: Record<string, unknown>,
  known?: Required<KnownPolicyTerms>,
): Promise<void> {
  assertValidDocument(kind, doc, known ?? (await knownTerms(ctx, true)));
  if (kind !== 'rule_pack') return;
  const pack = doc as unknown as RulePackDocument;
  const report = runPackTests(pack, await packDictionaries(ctx, pack.dictionaries ?? [], true));
  if (report.failed > 0) throw testsFailed(report);
}

/**
 * Stores a signed document as published: a draft row moved on, with its `ns.<kind>.published` event; or (`insert`)
 * a new row of shipped content, which is data of the release and has no event (seed-policy-content.ts).
 */
export async function writePublished(
  trx: Transaction<Database>,
  ctx: AppContext,
  kind: DocumentKind,
  signed: SignedPolicyDocument,
  how: { actor: string | null; origin: 'shipped' | 'operator'; insert?: boolean },
): Promise<void> {
  const doc = signed.document;
  const name = String(kind === 'rule_pack' ? doc.pack_id : doc.dictionary_id).replace(/^ns:[a-z_]+:/, '');
  const version = String(doc.version);
  const domain = kind === 'rule_pack' ? (doc.domain as 'purchase' | 'generic') : undefined;
  const at = ctx.clock.now().toISOString();
  if (how.insert) {
    return insertDocumentRow(trx, kind, {
      name,
      version,
      domain,
      state: 'published',
      document: signed.text,
      digest: signed.digest,
      origin: how.origin,
      at,
    });
  }
  await updateDocumentRow(trx, kind, name, version, {
    state: 'published',
    document: signed.text,
    digest: signed.digest,
    at,
  });
  await appendPublishedEvent(trx, ctx, {
    kind,
    name,
    version,
    domain,
    origin: how.origin,
    text: signed.text,
    digest: signed.digest,
    actor: how.actor,
  });
}
