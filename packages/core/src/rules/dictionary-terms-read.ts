/**
 * The part of each dictionary the rules can read (CONTRACT section 19: the snapshot carries "the dictionary terms the
 * rules read"). `var` paths are literal in the profile (profile.ts), so what a rule can read is known before it runs:
 * `dict.<name>.codes…` reads the code list, `dict.<name>.terms.<code>…` one term, and `dict.<name>.terms`,
 * `dict.<name>`, `dict` or `""` (the whole context) read everything below them.
 * INVARIANT: evaluating any rule whose paths are in `paths` on the trimmed dictionaries gives exactly what it gives on
 * the whole ones, so a decision replays the same; a whole dictionary (the shipped `mcc_family` is 14 KB) no longer
 * rides in every decision record for the one term a rule compares against.
 */
import type { DictionarySnapshot } from './types.ts';

/** Trimmed copies (the inputs are not changed); a dictionary no path reaches keeps its identity and no terms. */
export function dictionaryTermsRead(
  paths: readonly string[],
  dictionaries: Readonly<Record<string, DictionarySnapshot>>,
): Record<string, DictionarySnapshot> {
  const out: Record<string, DictionarySnapshot> = {};
  const wholeContext = paths.some((path) => path === '' || path === 'dict');
  for (const [name, dictionary] of Object.entries(dictionaries)) {
    const prefix = `dict.${name}`;
    const own = paths.filter((path) => path === prefix || path.startsWith(`${prefix}.`));
    if (wholeContext || own.includes(prefix)) {
      out[name] = dictionary;
      continue;
    }
    const readsCodes = own.some((path) => path === `${prefix}.codes` || path.startsWith(`${prefix}.codes.`));
    const allTerms = own.includes(`${prefix}.terms`);
    const terms: DictionarySnapshot['terms'] = {};
    for (const code of dictionary.codes) {
      const at = `${prefix}.terms.${code}`;
      if (allTerms || own.some((path) => path === at || path.startsWith(`${at}.`))) {
        const term = dictionary.terms[code];
        if (term !== undefined) terms[code] = term;
      }
    }
    out[name] = {
      dictionary_id: dictionary.dictionary_id,
      version: dictionary.version,
      digest: dictionary.digest,
      codes: readsCodes ? dictionary.codes : [],
      terms,
    };
  }
  return out;
}
