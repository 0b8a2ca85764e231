/**
 * The dictionaries a rule pack declares, as its rules read them (`DictionarySnapshot` by name): what its tests run
 * with. `publishedOnly`: each must be published (publish, activation), checked against its signature and digest;
 * else a draft dictionary serves too (testing a draft). A missing one is 422 `reference_not_found` naming its pointer.
 */
import { AarError, dictionarySnapshot, type DictionaryDocument, type DictionarySnapshot } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { trustedDocument } from './document-integrity.ts';
import { parseRef } from './policy-ids.ts';
import { readVersion } from './stored-documents.ts';

export async function packDictionaries(
  ctx: AppContext,
  refs: readonly unknown[],
  publishedOnly: boolean,
): Promise<Record<string, DictionarySnapshot>> {
  const out: Record<string, DictionarySnapshot> = {};
  for (const [i, ref] of refs.entries()) {
    const parsed = parseRef('dictionary', ref);
    const row = parsed && (await readVersion(ctx.store.db, 'dictionary', parsed.name, parsed.version));
    const usable = row && (publishedOnly ? row.state === 'published' : row.state !== 'retired');
    if (!parsed || !row || !usable) {
      throw new AarError(
        row ? 'reference_invalid' : 'reference_not_found',
        `dictionary \`${String(ref)}\` is ${row ? `${row.state}, not published` : 'unknown'}`,
        {
          errors: [{ path: `/dictionaries/${i}`, message: row ? `${row.state}, not published` : 'unknown dictionary' }],
        },
      );
    }
    out[parsed.name] = dictionarySnapshot(await trustedDocument<DictionaryDocument>(ctx, 'dictionary', row));
  }
  return out;
}
