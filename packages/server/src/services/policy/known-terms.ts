/**
 * What a policy document may refer to (core's `KnownPolicyTerms`): the dictionaries and rule packs that exist, and
 * the terms of the service's own closed lists a rule may name, read from the SHIPPED published dictionaries
 * `obligation_type`, `stop_condition` and `rule_taxonomy` (CONTRACT section 19: "the service validates its own inputs
 * against them"). Fail closed: without such a dictionary no term of it is known, so a rule naming one is refused.
 */
import type { DictionaryDocument, KnownPolicyTerms } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { trustedDocument } from './document-integrity.ts';
import { refOf } from './policy-ids.ts';

const VOCABULARIES = {
  obligationTypes: 'obligation_type',
  stopConditions: 'stop_condition',
  taxonomy: 'rule_taxonomy',
};

/** `publishedOnly`: only published dictionaries and packs count (publish, activation); else drafts too (drafting). */
export async function knownTerms(ctx: AppContext, publishedOnly: boolean): Promise<Required<KnownPolicyTerms>> {
  const db = ctx.store.db;
  const [dictionaries, packs] = await Promise.all([
    db.selectFrom('dictionaries').select(['name', 'version', 'state', 'origin', 'document', 'digest', 'seq']).execute(),
    db.selectFrom('rule_packs').select(['name', 'version', 'state']).execute(),
  ]);
  const counts = (state: string) => (publishedOnly ? state === 'published' : state !== 'retired');
  const vocabulary = async (name: string): Promise<Set<string>> => {
    const latest = dictionaries
      .filter((d) => d.name === name && d.state === 'published' && d.origin === 'shipped')
      .sort((a, b) => Number(b.seq) - Number(a.seq))[0];
    if (!latest) return new Set();
    const doc = await trustedDocument<DictionaryDocument>(ctx, 'dictionary', latest);
    return new Set((doc.terms ?? []).map((t) => t.code));
  };
  return {
    dictionaries: new Set(
      dictionaries.filter((d) => counts(d.state)).map((d) => refOf('dictionary', d.name, d.version)),
    ),
    rulePacks: new Set(packs.filter((p) => counts(p.state)).map((p) => refOf('rule_pack', p.name, p.version))),
    obligationTypes: await vocabulary(VOCABULARIES.obligationTypes),
    stopConditions: await vocabulary(VOCABULARIES.stopConditions),
    taxonomy: await vocabulary(VOCABULARIES.taxonomy),
  };
}
