/**
 * The rule packs the service ships (packages/server/policy/rule-packs, which `aar serve` seeds into its store as
 * published, service-signed packs) and the dictionaries they declare, bundled into the simulator at build time.
 * Bundled rather than fetched: the simulator is public (no token for `GET /v1/rule-packs`) and keeps deciding with the
 * network cut after load. decide reads a pack's rules and reasons, never its signature, so the unsigned source
 * documents decide exactly as the published ones do. The ISO 18245 `mcc` list (94 KB) is left out: no shipped pack
 * declares it.
 */
import {
  dictionarySnapshot,
  type DictionaryDocument,
  type DictionarySnapshot,
  type PolicySetSnapshot,
  type RulePackDocument,
} from '@aar/core';

const PACK_FILES = import.meta.glob<RulePackDocument>('../../../server/policy/rule-packs/*.json', {
  eager: true,
  import: 'default',
});
const DICTIONARY_FILES = import.meta.glob<DictionaryDocument>(
  ['../../../server/policy/dictionaries/*.json', '!**/mcc.json'],
  { eager: true, import: 'default' },
);

export type PackMode = 'off' | 'enforce' | 'shadow';

/** Purchase-domain packs with rules, by title (compliance mappings carry controls only and decide nothing). */
export const SHIPPED_PACKS: readonly RulePackDocument[] = Object.values(PACK_FILES)
  .filter((p) => p.domain === 'purchase' && p.rules.length > 0)
  .sort((a, b) => a.title.localeCompare(b.title));

const DICTIONARIES: Record<string, DictionaryDocument> = Object.fromEntries(
  Object.values(DICTIONARY_FILES).map((d) => [d.dictionary_id.slice('ns:dictionary:'.length), d]),
);

export function packName(pack: Pick<RulePackDocument, 'pack_id'>): string {
  return pack.pack_id.slice(pack.pack_id.lastIndexOf(':') + 1);
}

/**
 * The snapshot's `policy_set` for the chosen packs, in the order given (as activations would order them), with the
 * dictionaries they declare; undefined when none is on (the snapshot then has no policy_set, as the server's).
 */
export function policySetOf(
  modes: Readonly<Record<string, PackMode>>,
  packs: readonly RulePackDocument[] = SHIPPED_PACKS,
  dictionaries: Readonly<Record<string, DictionaryDocument>> = DICTIONARIES,
): PolicySetSnapshot | undefined {
  const chosen = packs.filter((p) => (modes[packName(p)] ?? 'off') !== 'off');
  if (chosen.length === 0) return undefined;
  const dicts: Record<string, DictionarySnapshot> = {};
  for (const pack of chosen) {
    for (const ref of pack.dictionaries) {
      const name = ref.replace(/^ns:dictionary:/, '').split('@')[0]!;
      const doc = dictionaries[name];
      if (doc && !dicts[name]) dicts[name] = dictionarySnapshot(doc);
    }
  }
  return {
    packs: chosen.map((document, i) => ({
      activation_id: `ns:rule_activation:00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
      mode: modes[packName(document)] === 'shadow' ? 'shadow' : 'enforce',
      document,
    })),
    dictionaries: dicts,
  };
}
