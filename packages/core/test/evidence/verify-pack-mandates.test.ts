/**
 * The evidence pack's `mandates` check (verify-pack-mandates.ts): every snapshot binding has its entry, each entry's
 * digest is its document's, an AP2 document and the presented closed presentation verify against the entry's
 * issuer JWKS (time and audience not checked offline), and a malformed member is named. Real AP2 chains made with
 * the SD-JWT library and fresh keys; ACP by digest only.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/json/canonical-json.ts';
import { mandateDigest } from '../../src/mandates/index.ts';
import { checkPackMandates } from '../../src/evidence/verify-pack-mandates.ts';
import { agentProviderChain, ISSUER, newKey, parties, type Parties } from '../mandates/support/build-chain.ts';

const MANDATE_ID = 'ns:mandate:0190d6a0-0000-7000-8000-000000000001';
const ALLOWANCE_ID = 'ns:allowance:0190d6a0-0000-7000-8000-000000000002';

let p: Parties;
let open: string;
let presentation: string;

beforeAll(async () => {
  p = await parties();
  ({ open, presentation } = await agentProviderChain(p));
});

function binding(digest: string, format: 'ap2' | 'acp' = 'ap2', mandate_id = MANDATE_ID) {
  return { mandate_id, format, digest, single_use: format === 'acp', used: false };
}

function packWith(bindings: object[], mandates?: unknown[], alternatives?: object[][]) {
  const grants = [{ grant_id: 'root' }, ...bindings.map((mandate, i) => ({ grant_id: `g${i}`, mandate }))];
  return {
    snapshot: { grants, ...(alternatives ? { alternatives } : {}) },
    ...(mandates !== undefined ? { mandates } : {}),
  };
}

function ap2Entry(overrides: Record<string, unknown> = {}) {
  return {
    mandate_id: MANDATE_ID,
    format: 'ap2',
    digest: mandateDigest(open),
    document: open,
    issuer: ISSUER,
    issuer_jwks: { keys: [p.issuer.publicJwk] },
    presented: presentation,
    ...overrides,
  };
}

describe('the mandates check of an evidence pack', () => {
  it('is not recorded for a pack without mandates', async () => {
    expect(await checkPackMandates(packWith([]))).toBeUndefined();
    expect(await checkPackMandates({ snapshot: { grants: [{ grant_id: 'g' }] } })).toBeUndefined();
  });

  it('passes a verified AP2 mandate with its presented closed presentation, time and audience not checked', async () => {
    expect(await checkPackMandates(packWith([binding(mandateDigest(open))], [ap2Entry()]))).toBe(true);
    // without `presented` (the purchase named the mandate by id)
    const { presented: _presented, ...byId } = ap2Entry();
    expect(await checkPackMandates(packWith([binding(mandateDigest(open))], [byId]))).toBe(true);
  });

  it('passes an ACP allowance whose document hashes to its digest', async () => {
    const document = canonicalJson({ reason: 'one_time', max_amount: 2000, currency: 'eur' });
    const entry = { mandate_id: ALLOWANCE_ID, format: 'acp', digest: mandateDigest(document), document };
    expect(await checkPackMandates(packWith([binding(entry.digest, 'acp', ALLOWANCE_ID)], [entry]))).toBe(true);
  });

  it('fails mandate_missing when a binding of any chain has no entry, or another digest', async () => {
    const digest = mandateDigest(open);
    expect(await checkPackMandates(packWith([binding(digest)]))).toBe('mandate_missing');
    expect(await checkPackMandates(packWith([binding(digest)], []))).toBe('mandate_missing');
    const other = mandateDigest(`${open}x`);
    expect(await checkPackMandates(packWith([binding(other)], [ap2Entry()]))).toBe('mandate_missing');
    // an alternative chain's binding needs its entry too
    const alt = [
      [{ grant_id: 'a', mandate: binding(digest, 'ap2', 'ns:mandate:0190d6a0-0000-7000-8000-00000000000f') }],
    ];
    expect(await checkPackMandates(packWith([binding(digest)], [ap2Entry()], alt))).toBe('mandate_missing');
  });

  it('fails mandate_digest_mismatch on a document that is not the digested one', async () => {
    const edited = `${open.slice(0, -3)}A~`;
    expect(await checkPackMandates(packWith([binding(mandateDigest(open))], [ap2Entry({ document: edited })]))).toBe(
      'mandate_digest_mismatch',
    );
  });

  it('fails mandate_signature_invalid on another issuer key, or a presented text that does not extend the document', async () => {
    const stranger = await newKey('ES256', 'issuer-key-1');
    const digest = mandateDigest(open);
    expect(
      await checkPackMandates(packWith([binding(digest)], [ap2Entry({ issuer_jwks: { keys: [stranger.publicJwk] } })])),
    ).toBe('mandate_signature_invalid');
    const { presentation: otherPresented } = await agentProviderChain(p);
    expect(await checkPackMandates(packWith([binding(digest)], [ap2Entry({ presented: otherPresented })]))).toBe(
      'mandate_signature_invalid',
    );
    // the closing hop signed by another key than the mandate's cnf
    const [head, closing] = [
      presentation.slice(0, presentation.lastIndexOf('~~') + 1),
      presentation.slice(presentation.lastIndexOf('~~') + 2),
    ];
    const parts = closing.split('.');
    const tampered = `${head}~${parts[0]}.${parts[1]}.${parts[2]!.slice(0, 10)}${parts[2]![10] === 'A' ? 'B' : 'A'}${parts[2]!.slice(11)}`;
    expect(await checkPackMandates(packWith([binding(digest)], [ap2Entry({ presented: tampered })]))).toBe(
      'mandate_signature_invalid',
    );
  });

  it('fails malformed_mandates on a member that is not a list of entries, or a binding without an id', async () => {
    const digest = mandateDigest(open);
    expect(await checkPackMandates(packWith([binding(digest)], 'x' as never))).toBe('malformed_mandates');
    expect(await checkPackMandates(packWith([binding(digest)], [{ mandate_id: MANDATE_ID }]))).toBe(
      'malformed_mandates',
    );
    expect(await checkPackMandates(packWith([binding(digest)], [ap2Entry({ format: 'vi' })]))).toBe(
      'malformed_mandates',
    );
    expect(await checkPackMandates(packWith([binding(digest)], [ap2Entry({ presented: 7 })]))).toBe(
      'malformed_mandates',
    );
    expect(await checkPackMandates(packWith([{ format: 'ap2' }], [ap2Entry()]))).toBe('malformed_mandates');
    // a member on a pack whose snapshot names no mandate is still checked
    expect(await checkPackMandates(packWith([], [ap2Entry({ digest: 'x' })]))).toBe('mandate_digest_mismatch');
  });
});
