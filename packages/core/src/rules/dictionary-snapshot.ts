/**
 * A published dictionary as a decision snapshot carries it and rules read it: `codes` in document order, `terms` by
 * code (without `code`), and the document's digest so the evidence names the exact version a rule read.
 */
import { policyDocumentDigest } from './document-digest.ts';
import type { DictionaryDocument, DictionarySnapshot, DictionaryTerm } from './types.ts';

/** Precondition: `doc` passed validateDictionary. */
export function dictionarySnapshot(doc: DictionaryDocument): DictionarySnapshot {
  // null prototype: a term code is data, never a path into Object.prototype
  const terms = Object.create(null) as Record<string, Omit<DictionaryTerm, 'code'>>;
  const codes: string[] = [];
  for (const term of doc.terms) {
    const { code, ...rest } = term;
    codes.push(code);
    Object.defineProperty(terms, code, { value: rest, enumerable: true, writable: true, configurable: true });
  }
  return {
    dictionary_id: doc.dictionary_id,
    version: doc.version,
    digest: policyDocumentDigest(doc),
    codes,
    terms: { ...terms },
  };
}
