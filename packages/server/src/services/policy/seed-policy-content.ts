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
 * Cost: one query tells which shipped (kind, name, version) are present; a start that finds them all does nothing
 * else. Only a missing document is checked and signed. The checks are a pure function of the document and of what
 * they read from the store (the published terms, the pack's dictionaries by digest), so a pass is remembered per
 * process under a digest of all of those: a second store of the same process skips re-running them, a store whose
 * content differs in any of them runs them again (a deployment's process opens one store: this serves the tests and
 * tools that open many). Signing is per store (its key): one RFC 8785 pass per document,
 * the digest of the release's file being computed once per process.
 * Several instances starting together on one PostgreSQL: each seeding transaction first takes a transaction-scoped
 * advisory lock of the schema, so they run one after another and the later ones find everything present.
 * A shipped document that does not pass is NOT seeded and is returned in `refused` (runtime.ts prints it): a release
 * must not fail to start over one bad file, and a test holds the shipped set to seeding whole
 * (test/policy-content/seed-shipped-content.test.ts).
 */
import { createHash } from 'node:crypto';
import {
  isAarError,
  policyDocumentDigest,
  signDocumentWithText,
  validateDictionary,
  type KnownPolicyTerms,
} from '@aar/core';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Database } from '../../store/index.ts';
import { isUniqueViolation } from '../unique-violation.ts';
import type { SignedPolicyDocument } from './document-integrity.ts';
import { knownTerms } from './known-terms.ts';
import { checkPublishable, writePublished } from './publish-document.ts';
import { idPrefix, refOf } from './policy-ids.ts';
import { policyFolderOf, readShippedContent } from './shipped-content.ts';
import type { DocumentKind } from './stored-documents.ts';

export interface SeedResult {
  /** `ns:<kind>:<name>@<version>` of every document written now */
  seeded: string[];
  refused: Array<{ file: string; problems: string[] }>;
}

const KINDS = ['dictionary', 'rule_pack'] as const;

export async function seedPolicyContent(ctx: AppContext, folder: URL = policyFolderOf(ctx)): Promise<SeedResult> {
  const result: SeedResult = { seeded: [], refused: [] };
  const content = readShippedContent(folder);
  const present = await presentVersions(ctx.store.db, content);
  for (const kind of KINDS) {
    const missing: Array<{ file: string; document: Record<string, unknown> }> = [];
    for (const file of content.get(kind) ?? []) {
      if (!file.document) {
        result.refused.push({ file: file.file, problems: [file.problem ?? 'unreadable'] });
        continue;
      }
      const { name, version } = identify(kind, file.document);
      if (name && version && present.has(refOf(kind, name, version))) continue;
      missing.push({ file: file.file, document: file.document });
    }
    if (missing.length === 0) continue;
    // nothing is written until the batch's transaction: every document of the batch is checked against one reading
    const inputs = await checkInputs(ctx);
    const signed: SignedPolicyDocument[] = [];
    for (const { file, document } of missing) {
      const problems = await publishProblems(ctx, kind, document, inputs);
      if (problems.length > 0) {
        result.refused.push({ file, problems });
        continue;
      }
      signed.push(await signShipped(ctx, document));
    }
    if (signed.length === 0) continue;
    try {
      const written = await ctx.writer.run(async (trx) => {
        await lockSeeding(trx, ctx);
        const there = await presentVersions(trx, content); // another instance may have seeded some first
        const out: string[] = [];
        for (const doc of signed) {
          const { name, version } = identify(kind, doc.document);
          if (there.has(refOf(kind, name!, version!))) continue;
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

/** `ns:<kind>:<name>@<version>` of every stored version of a shipped name, whatever its state: one query. */
async function presentVersions(
  db: Kysely<Database> | Transaction<Database>,
  content: ReturnType<typeof readShippedContent>,
): Promise<Set<string>> {
  const names = (kind: DocumentKind) => {
    const out = new Set<string>();
    for (const file of content.get(kind) ?? []) {
      const { name } = file.document ? identify(kind, file.document) : {};
      if (name) out.add(name);
    }
    // `in ()` is no SQL: a name no row can have stands for none
    return out.size > 0 ? [...out] : [''];
  };
  const rows = await db
    .selectFrom('dictionaries')
    .select([sql<string>`'dictionary'`.as('kind'), 'name', 'version'])
    .where('name', 'in', names('dictionary'))
    .unionAll(
      db
        .selectFrom('rule_packs')
        .select([sql<string>`'rule_pack'`.as('kind'), 'name', 'version'])
        .where('name', 'in', names('rule_pack')),
    )
    .execute();
  return new Set(rows.map((r) => refOf(r.kind as DocumentKind, r.name, r.version)));
}

function identify(kind: DocumentKind, doc: Record<string, unknown>): { name?: string; version?: string } {
  const id = doc[kind === 'rule_pack' ? 'pack_id' : 'dictionary_id'];
  const name = typeof id === 'string' && id.startsWith(idPrefix(kind)) ? id.slice(idPrefix(kind).length) : undefined;
  return { name, version: typeof doc.version === 'string' ? doc.version : undefined };
}

/** What the checks read from the store: the published terms, and every dictionary version's state and digest. */
interface CheckInputs {
  known: Required<KnownPolicyTerms>;
  /** digest of `known` and of the dictionaries' (name, version, state, digest) */
  fingerprint: string;
}

async function checkInputs(ctx: AppContext): Promise<CheckInputs> {
  const [known, dictionaries] = await Promise.all([
    knownTerms(ctx, true),
    ctx.store.db.selectFrom('dictionaries').select(['name', 'version', 'state', 'digest']).orderBy('seq').execute(),
  ]);
  const hash = createHash('sha256');
  for (const [member, set] of Object.entries(known).sort(([a], [b]) => (a < b ? -1 : 1))) {
    hash.update(`${member}\n${JSON.stringify([...(set as ReadonlySet<string>)].sort())}\n`);
  }
  for (const d of dictionaries) hash.update(`${d.name}\n${d.version}\n${d.state}\n${d.digest ?? '-'}\n`);
  return { known, fingerprint: hash.digest('base64url') };
}

/** Checks passed in this process, by digest of (kind, document, inputs): the checks are pure functions of these. */
const passed = new Set<string>();
const PASSED_LIMIT = 10_000;

async function publishProblems(
  ctx: AppContext,
  kind: DocumentKind,
  doc: Record<string, unknown>,
  inputs: CheckInputs,
): Promise<string[]> {
  let key: string;
  try {
    key = createHash('sha256')
      .update(`${kind}\n${shippedDigest(doc)}\n${inputs.fingerprint}`)
      .digest('base64url');
    if (passed.has(key)) return [];
    if (kind === 'dictionary') {
      const problems = validateDictionary(doc);
      if (problems.length > 0) return problems.map((p) => `${p.pointer || '/'}: ${p.message}`);
    }
    await checkPublishable(ctx, kind, doc, inputs.known);
  } catch (error) {
    if (!isAarError(error)) throw error;
    return error.errors?.map((e) => `${e.path || '/'}: ${e.message}`) ?? [error.message];
  }
  if (passed.size >= PASSED_LIMIT) passed.clear();
  passed.add(key);
  return [];
}

/** The digest of a release's document (`policyDocumentDigest`), once per process: the file's object is cached. */
const digests = new WeakMap<Record<string, unknown>, string>();

function shippedDigest(doc: Record<string, unknown>): string {
  let digest = digests.get(doc);
  if (digest === undefined) {
    digest = policyDocumentDigest(doc);
    digests.set(doc, digest);
  }
  return digest;
}

/** signPolicyDocument's result, with one RFC 8785 pass (the digest is of the unsigned members, as signed). */
async function signShipped(ctx: AppContext, doc: Record<string, unknown>): Promise<SignedPolicyDocument> {
  const { signature: _dropped, ...unsigned } = doc;
  const { document, text } = await signDocumentWithText(unsigned, ctx.keys.current());
  return { document: document as Record<string, unknown>, text, digest: shippedDigest(doc) };
}

async function lockSeeding(trx: Transaction<Database>, ctx: AppContext): Promise<void> {
  if (ctx.store.dialect !== 'postgres') return;
  await sql`select pg_advisory_xact_lock(hashtext('aar_policy_seed:' || current_schema()))`.execute(trx);
}
