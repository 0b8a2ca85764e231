/**
 * Checks a policy document given to the service (a draft, or a draft about to be published) with core's validators
 * and what the store knows (known-terms.ts), and, for a rule pack, that it names no pack where a dictionary belongs:
 * packs never reference packs, so no cycle between packs can form. Throws the problem+json of document-problems.ts.
 */
import { validateDictionary, validateRulePack, type KnownPolicyTerms, type RuleProblem } from '@aar/core';
import { documentRefused } from './document-problems.ts';
import type { DocumentKind } from './stored-documents.ts';

export function assertValidDocument(kind: DocumentKind, doc: unknown, known: KnownPolicyTerms): void {
  const problems: RuleProblem[] = kind === 'rule_pack' ? validateRulePack(doc, known) : validateDictionary(doc);
  if (kind === 'rule_pack' && typeof doc === 'object' && doc !== null) {
    const refs = (doc as { dictionaries?: unknown }).dictionaries;
    if (Array.isArray(refs)) {
      refs.forEach((ref, i) => {
        if (typeof ref === 'string' && /^ns:(rule_pack|sector_pack):/.test(ref)) {
          const at = `/dictionaries/${i}`;
          const others = problems.filter((p) => p.pointer !== at);
          problems.length = 0;
          problems.push(...others, {
            pointer: at,
            message: `${ref} is a pack: a pack declares dictionaries only, never another pack (no cycle can form)`,
          });
        }
      });
    }
  }
  if (problems.length > 0) throw documentRefused(kind === 'rule_pack' ? 'rule pack' : 'dictionary', problems);
}
