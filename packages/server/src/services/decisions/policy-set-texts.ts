/**
 * The policy set texts decision records name by digest (record codec 2, migration 0022).
 *
 * Writing: before a decision's transaction, `storedPolicySetOf` makes sure the snapshot's policy set text is in this
 * store's `policy_set_texts`, in a write unit of its own that has committed (the write queue resolves a unit only
 * once its batch is durable) before any record names it. Per store, that is done once per text: the answer is
 * remembered. If it cannot be stored, the decision is written whole (codec 1): never a record naming a text that is
 * not there.
 *
 * Reading: `preloadPolicySetTexts` fetches the texts a set of records names into a process-wide cache, keyed by the
 * text's SHA-256 and checked against it on the way in, so a cached text is the one the digest names whatever store
 * it came from (content addressing; a test process runs many stores). A row whose text does not hash to its key is
 * not cached, and the records naming it fail to decode: an edited text is noticed by whoever reads the record, and
 * by GET /v1/audit/verify through the record's digest.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Database } from '../../store/index.ts';
import { isUniqueViolation } from '../unique-violation.ts';
import { policySetDigestOf, type PolicySetTextLookup, type StoredPolicySetText } from './record-codec.ts';

/** about 10 MB of texts at 40 KB each; past it, starts over (a miss costs one indexed read) */
const CACHE_LIMIT = 256;
const MIN_NAMED_TEXT = 2048;
const cache = new Map<string, string>();

export function policySetTextDigest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function remember(digest: string, text: string): void {
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(digest, text);
}

/** The lookup decodeDecisionRecord takes: the texts preloaded (or written) by this process. */
export const cachedPolicySetText: PolicySetTextLookup = (digest) => cache.get(digest);

/**
 * The texts the given records name, read from the store now and checked against their digests, never from the cache
 * (GET /v1/audit/verify judges the store, not what this process remembers): a text missing or edited is left out, so
 * the records naming it fail to decode.
 */
export async function readPolicySetTexts(
  db: Kysely<Database>,
  blobs: Iterable<Uint8Array | null | undefined>,
): Promise<PolicySetTextLookup> {
  const texts = await fetchTexts(
    db,
    digestsNamed(blobs, () => true),
  );
  return (digest) => texts.get(digest);
}

/** Fetches into the cache every text the given records name and the cache lacks. */
export async function preloadPolicySetTexts(
  db: Kysely<Database>,
  blobs: Iterable<Uint8Array | null | undefined>,
): Promise<void> {
  const texts = await fetchTexts(
    db,
    digestsNamed(blobs, (digest) => !cache.has(digest)),
  );
  for (const [digest, text] of texts) remember(digest, text);
}

function digestsNamed(blobs: Iterable<Uint8Array | null | undefined>, wanted: (digest: string) => boolean): string[] {
  const digests = new Set<string>();
  for (const blob of blobs) {
    const digest = policySetDigestOf(blob ?? null);
    if (digest !== undefined && wanted(digest)) digests.add(digest);
  }
  return [...digests];
}

/** The stored texts of `digests`, each only if it hashes to its digest (an edited or foreign row is left out). */
async function fetchTexts(db: Kysely<Database>, digests: string[]): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  if (digests.length === 0) return texts;
  const rows = await db
    .selectFrom('policy_set_texts')
    .select(['digest', 'text'])
    .where('digest', 'in', digests)
    .execute();
  for (const row of rows) if (policySetTextDigest(row.text) === row.digest) texts.set(row.digest, row.text);
  return texts;
}

/** per policy set object (the active policy set is cached and shared by every decision it applies to) */
const digests = new WeakMap<object, string>();
/** per store: the digests known durably stored in it (a settled promise once the write committed) */
const stored = new WeakMap<object, Map<string, Promise<boolean>>>();

/**
 * The snapshot's policy set text with its digest once it is durably in this store, to write the record with codec 2;
 * undefined when there is none or it could not be stored (write the record whole). `text` must be the policy set's
 * canonical text (policy-set-text.ts), the text the record splices in.
 */
export async function storedPolicySetOf(
  ctx: AppContext,
  policySet: object | undefined,
  text: string | undefined,
): Promise<StoredPolicySetText | undefined> {
  // a small set costs less written whole than named (and the record's own DEFLATE takes it well)
  if (policySet === undefined || text === undefined || text.length < MIN_NAMED_TEXT) return undefined;
  let digest = digests.get(policySet);
  if (digest === undefined) {
    digest = policySetTextDigest(text);
    digests.set(policySet, digest);
  }
  let known = stored.get(ctx.store);
  if (!known) {
    known = new Map();
    stored.set(ctx.store, known);
  }
  let done = known.get(digest);
  if (done === undefined) {
    done = writeText(ctx, digest, text);
    known.set(digest, done);
    // a failure is not remembered: the next decision tries again
    void done.then((ok) => {
      if (!ok) known.delete(digest);
    });
  }
  if (!(await done)) return undefined;
  remember(digest, text);
  return { digest, text };
}

async function writeText(ctx: AppContext, digest: string, text: string): Promise<boolean> {
  try {
    return await ctx.writer.run(async (trx) => {
      const present = await trx
        .selectFrom('policy_set_texts')
        .select('text')
        .where('digest', '=', digest)
        .executeTakeFirst();
      if (!present) await trx.insertInto('policy_set_texts').values({ digest, text }).execute();
      // a row under this digest holding other text (edited): name nothing, write records whole
      return present === undefined || present.text === text;
    });
  } catch (error) {
    // another instance stored it first (PostgreSQL): it is there
    if (isUniqueViolation(error)) return true;
    return false;
  }
}
