/**
 * Seeds the shipped dictionaries and rule packs at start (runtime.ts), idempotently: each one missing from the store
 * is inserted as published, signed by the service, origin `shipped`; nothing present is touched (a release's new
 * content appears on its first start). No event and no audit entry, as for the reference listings: the shipped content
 * is data of the release, not an act of anyone on this deployment (and a new deployment's log stays empty until
 * something happens on it); each row is anchored by the service's signature made when it was written, which readers
 * and `GET /v1/audit/verify` check (check-policy-content.ts). Publishing, retiring and activating it are acts, with
 * their events. Dictionaries first, then packs (a pack is checked against published dictionaries and its tests
 * must pass, exactly as a publication). Sector packs are not stored: they are read from the release
 * (sector-packs.ts).
 * Several instances starting together on one PostgreSQL: each seeding transaction first takes a transaction-scoped
 * advisory lock of the schema, so they run one after another and the later ones find everything present.
 * A shipped document that does not pass is NOT seeded and is returned in `refused` (runtime.ts prints it): a release
 * must not fail to start over one bad file, and a test holds the shipped set to seeding whole.
 */
import { isAarError, validateDictionary } from '@aar/core';
import { sql, type Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Database } from '../../store/index.ts';
import { isUniqueViolation } from '../unique-violation.ts';
import { signPolicyDocument, type SignedPolicyDocument } from './document-integrity.ts';
import { checkPublishable, writePublished } from './publish-document.ts';
import { idPrefix, refOf } from './policy-ids.ts';
import { policyFolderOf, readShippedContent } from './shipped-content.ts';
import { readVersion, type DocumentKind } from './stored-documents.ts';

export interface SeedResult {
  /** `ns:<kind>:<name>@<version>` of every document written now */
  seeded: string[];
  refused: Array<{ file: string; problems: string[] }>;
}

export async function seedPolicyContent(ctx: AppContext, folder: URL = policyFolderOf(ctx)): Promise<SeedResult> {
  const result: SeedResult = { seeded: [], refused: [] };
  const content = readShippedContent(folder);
  for (const kind of ['dictionary', 'rule_pack'] as const) {
    const signed: SignedPolicyDocument[] = [];
    for (const file of content.get(kind) ?? []) {
      if (!file.document) {
        result.refused.push({ file: file.file, problems: [file.problem ?? 'unreadable'] });
        continue;
      }
      const { name, version } = identify(kind, file.document);
      if (name && version && (await readVersion(ctx.store.db, kind, name, version))) continue;
      const problems = await publishProblems(ctx, kind, file.document);
      if (problems.length > 0) {
        result.refused.push({ file: file.file, problems });
        continue;
      }
      signed.push(await signPolicyDocument(ctx, file.document));
    }
    if (signed.length === 0) continue;
    try {
      const written = await ctx.writer.run(async (trx) => {
        await lockSeeding(trx, ctx);
        const out: string[] = [];
        for (const doc of signed) {
          const { name, version } = identify(kind, doc.document);
          if (await readVersion(trx, kind, name!, version!)) continue; // another instance seeded it first
          await writePublished(trx, ctx, kind, doc, { actor: null, origin: 'shipped', insert: true });
          out.push(refOf(kind, name!, version!));
        }
        return out;
      });
      result.seeded.push(...written);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }
  return result;
}

function identify(kind: DocumentKind, doc: Record<string, unknown>): { name?: string; version?: string } {
  const id = doc[kind === 'rule_pack' ? 'pack_id' : 'dictionary_id'];
  const name = typeof id === 'string' && id.startsWith(idPrefix(kind)) ? id.slice(idPrefix(kind).length) : undefined;
  return { name, version: typeof doc.version === 'string' ? doc.version : undefined };
}

async function publishProblems(ctx: AppContext, kind: DocumentKind, doc: Record<string, unknown>): Promise<string[]> {
  if (kind === 'dictionary') {
    const problems = validateDictionary(doc);
    if (problems.length > 0) return problems.map((p) => `${p.pointer || '/'}: ${p.message}`);
  }
  try {
    await checkPublishable(ctx, kind, doc);
    return [];
  } catch (error) {
    if (!isAarError(error)) throw error;
    return error.errors?.map((e) => `${e.path || '/'}: ${e.message}`) ?? [error.message];
  }
}

async function lockSeeding(trx: Transaction<Database>, ctx: AppContext): Promise<void> {
  if (ctx.store.dialect !== 'postgres') return;
  await sql`select pg_advisory_xact_lock(hashtext('aar_policy_seed:' || current_schema()))`.execute(trx);
}
