/**
 * `POST /v1/rule-packs` and `POST /v1/dictionaries`: a full document stored as a draft of its (name, version), or
 * replacing the draft of that version (a published or retired version never changes: 409). Validated first (profile,
 * structure, size, declared reasons, known dictionaries and terms): refused with every problem's pointer, nothing
 * written. A `signature` it carries is dropped: the service signs at publish. One `ns.<kind>.drafted` event.
 */
import { AarError, canonicalJson, nameOfId as coreNameOf, type KnownPolicyTerms } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { appendDraftedEvent } from './document-events.ts';
import { summaryOf, type DocumentSummary } from './document-summary.ts';
import { idPrefix } from './policy-ids.ts';
import { knownTerms } from './known-terms.ts';
import { insertDocumentRow, readVersion, updateDocumentRow, type DocumentKind } from './stored-documents.ts';
import { assertValidDocument } from './validate-document.ts';

const ID_MEMBER: Readonly<Record<DocumentKind, 'pack_id' | 'dictionary_id'>> = {
  rule_pack: 'pack_id',
  dictionary: 'dictionary_id',
};

export async function draftDocument(
  ctx: AppContext,
  credential: Credential | null,
  kind: DocumentKind,
  body: Record<string, unknown>,
): Promise<DocumentSummary> {
  const { signature: _dropped, ...doc } = body;
  const known: KnownPolicyTerms = await knownTerms(ctx, false);
  assertValidDocument(kind, doc, known);
  const name = coreNameOf(doc[ID_MEMBER[kind]], idPrefix(kind))!;
  const version = doc.version as string;
  const text = canonicalJson(doc);
  const domain = kind === 'rule_pack' ? (doc.domain as 'purchase' | 'generic') : undefined;
  const at = ctx.clock.now().toISOString();
  await ctx.writer.run(async (trx) => {
    const existing = await readVersion(trx, kind, name, version);
    if (existing && existing.state !== 'draft') {
      throw new AarError('conflict', `\`${name}@${version}\` is ${existing.state}: a published version never changes`, {
        errors: [{ path: '/version', message: `version ${version} is ${existing.state}; draft a new version` }],
      });
    }
    if (existing) await updateDocumentRow(trx, kind, name, version, { state: 'draft', document: text, domain, at });
    else
      await insertDocumentRow(trx, kind, {
        name,
        version,
        domain,
        state: 'draft',
        document: text,
        digest: null,
        origin: 'operator',
        at,
      });
    await appendDraftedEvent(trx, ctx, {
      kind,
      name,
      version,
      domain,
      origin: 'operator',
      text,
      actor: actorOf(credential),
    });
  });
  const row = await readVersion(ctx.store.db, kind, name, version);
  return summaryOf(kind, row!);
}
