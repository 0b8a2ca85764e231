/**
 * signDocumentWithText: the same document and signature as signDocument, and a text that is exactly
 * canonicalJson(document), on any plain document (keys on either side of `signature`, non-ASCII keys, an old
 * signature member replaced, undefined members) and on documents the fast writer leaves to the package path.
 * tryCanonicalJson's `known` texts stand in for their objects exactly.
 */
import { generateKeyPairSync, sign as nodeSign } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/json/canonical-json.ts';
import { tryCanonicalJson, tryCanonicalMembers } from '../../src/json/write-canonical-json.ts';
import type { DocumentSigner } from '../../src/signing/sign-document.ts';
import { signDocument, signDocumentWithText } from '../../src/signing/sign-document.ts';

const { privateKey } = generateKeyPairSync('ed25519');
/** deterministic (Ed25519), so both functions must give the same signature */
const signer: DocumentSigner = {
  keyId: 'ns:key:test-2025',
  sign: async (message) => new Uint8Array(nodeSign(null, message, privateKey)),
};

const documents = fc.dictionary(
  fc.oneof(fc.string({ unit: 'grapheme' }), fc.constantFrom('signature', 'schema_version', 'a', 'z', '\u00e9', 'sig')),
  fc.option(fc.jsonValue(), { nil: undefined }),
);

describe('signDocumentWithText', () => {
  it('signs as signDocument does, and its text is canonicalJson of the signed document', async () => {
    await fc.assert(
      fc.asyncProperty(documents, async (doc) => {
        const expected = await signDocument(doc, signer);
        const { document, text } = await signDocumentWithText(doc, signer);
        expect(JSON.stringify(document)).toBe(JSON.stringify(expected));
        expect(text).toBe(canonicalJson(expected));
      }),
      { numRuns: 300 },
    );
  });

  it('takes the general path for what the fast writer refuses, and refuses what signDocument refuses', async () => {
    const dated = { at: new Date(0), b: 1 };
    const { document, text } = await signDocumentWithText(dated, signer);
    expect(JSON.stringify(document)).toBe(JSON.stringify(await signDocument(dated, signer)));
    expect(text).toBe(canonicalJson(document));
    for (const bad of [[1], null, 'x', { s: 'a\ud800' }]) {
      await expect(signDocumentWithText(bad as object, signer)).rejects.toMatchObject({ code: 'invalid_json' });
    }
  });
});

describe('canonical texts reused', () => {
  it('members joined are the object text; a known text stands in for its object', () => {
    fc.assert(
      fc.property(documents, (doc) => {
        const members = tryCanonicalMembers(doc)!;
        expect(`{${members.map(([, m]) => m).join(',')}}`).toBe(tryCanonicalJson(doc));
        const outer = { z: [doc], a: doc, m: { doc } };
        const known = new Map([[doc as object, tryCanonicalJson(doc)!]]);
        expect(tryCanonicalJson(outer, known)).toBe(tryCanonicalJson(outer));
      }),
      { numRuns: 300 },
    );
    expect(tryCanonicalMembers({ at: new Date(0) })).toBeUndefined();
    expect(tryCanonicalMembers([1])).toBeUndefined();
  });
});
