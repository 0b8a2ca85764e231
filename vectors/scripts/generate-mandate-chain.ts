/**
 * `vectors/mandates/ap2-chain.json`: one AP2 mandate chain (issuer -> user device -> agent, ES256, P-256 keys made
 * here with node:crypto) and mutations of it, with the error codes every offline verifier must answer (TypeScript
 * core, the Python SDK's mandates.py, the Go SDK's mandate.go), plus evidence-pack `mandates` members with the
 * check's expected outcome. `want` is the set of distinct codes, sorted (a verifier may name one fault at several
 * places, or stop at the first place). Written independently of the three verifiers (node:crypto only, no SD-JWT library), so a
 * verifier cannot pass by sharing a mistake with the generator. The `want` codes are written by hand here.
 *
 *   node --import tsx vectors/scripts/generate-mandate-chain.ts
 *
 * ECDSA signatures and salts are random: the output is NOT byte-identical from run to run. Time is not part of
 * these cases (offline verification does not check it).
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

type Json = Record<string, unknown>;
const out = fileURLToPath(new URL('../mandates/ap2-chain.json', import.meta.url));

const b64 = (data: Buffer | string): string => Buffer.from(data).toString('base64url');
const b64json = (value: unknown): string => b64(JSON.stringify(value));
const sha = (text: string): string => b64(createHash('sha256').update(text, 'utf8').digest());
const p256 = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwkOf = (key: KeyObject): Json => {
  const { kty, crv, x, y } = key.export({ format: 'jwk' });
  return { kty, crv, x, y };
};
function jws(header: Json, payload: Json, key: KeyObject | null): string {
  const input = `${b64json(header)}.${b64json(payload)}`;
  if (key === null) return `${input}.`;
  return `${input}.${b64(sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }))}`;
}
const disclosure = (...items: unknown[]): string => b64json([b64(randomBytes(16)), ...items]);
const hop = (jwt: string, disclosures: string[]): string => [jwt, ...disclosures].join('~') + '~';

const issuer = p256();
const user = p256();
const agent = p256();
const attacker = p256();
const issuerJwks = { keys: [{ ...jwkOf(issuer.publicKey), kid: 'issuer-1', alg: 'ES256', use: 'sig' }] };

const payee = disclosure({ id: 'merchant_1', name: 'Demo Merchant' });
const openMandate = disclosure({
  vct: 'mandate.payment.open.1',
  constraints: [
    { type: 'payment.amount_range', currency: 'USD', max: 20000, min: 0 },
    { type: 'payment.allowed_payees', allowed: [{ '...': sha(payee) }] },
  ],
  cnf: { jwk: jwkOf(user.publicKey) },
  iat: 1777342357,
  exp: 1777345957,
});
const header0 = { alg: 'ES256', typ: 'dc+sd-jwt', kid: 'issuer-1' };
const payload0 = { iss: 'https://issuer.example', delegate_payload: [{ '...': sha(openMandate) }], _sd_alg: 'sha-256' };
const hop0 = (o: { disclosures?: string[]; header?: Json; payload?: Json; key?: KeyObject | null } = {}): string =>
  hop(
    jws(o.header ?? header0, o.payload ?? payload0, o.key === undefined ? issuer.privateKey : o.key),
    o.disclosures ?? [payee, openMandate],
  );

const note = disclosure('transaction_note', 'sneakers');
const closedMandate = disclosure({
  _sd: [sha(note)],
  vct: 'mandate.payment.1',
  payment_amount: { amount: 19900, currency: 'USD' },
  cnf: { jwk: jwkOf(agent.publicKey) },
});
function hop1(
  previous: string,
  o: {
    disclosures?: string[];
    key?: KeyObject | null;
    sdHash?: string;
    header?: Json;
    drop?: string;
    delegate?: string[];
  } = {},
): string {
  const payload: Json = {
    delegate_payload: (o.delegate ?? [closedMandate]).map((d) => ({ '...': sha(d) })),
    aud: 'https://aar.example',
    nonce: 'n-1',
    iat: 1777342370,
    _sd_alg: 'sha-256',
    sd_hash: o.sdHash ?? sha(previous),
  };
  if (o.drop !== undefined) delete payload[o.drop];
  return hop(
    jws(o.header ?? { alg: 'ES256', typ: 'kb+sd-jwt' }, payload, o.key === undefined ? user.privateKey : o.key),
    o.disclosures ?? [closedMandate, note],
  );
}

const document = hop0();
const hop1Text = hop1(document);
const presented = `${document}~${hop1Text}`;
const third = hop1(hop1Text, { disclosures: [], key: agent.privateKey });
const intermediate = hop1(document, { header: { alg: 'ES256', typ: 'kb+sd-jwt+kb' } });
const unknownVct = disclosure({ vct: 'mandate.loyalty.1', cnf: { jwk: jwkOf(user.publicKey) } });
const secondOpen = disclosure({ vct: 'mandate.payment.open.1', constraints: [], cnf: { jwk: jwkOf(agent.publicKey) } });
const forgedOpen = disclosure({ vct: 'mandate.payment.open.1', constraints: [], cnf: { jwk: jwkOf(attacker.publicKey) } });

const cases: Array<{ desc: string; presentation: string; want: string[] }> = [
  { desc: 'the open mandate alone (hop 0, issuer-signed)', presentation: document, want: [] },
  { desc: 'open ~~ closed: key-bound by the open mandate cnf key', presentation: presented, want: [] },
  { desc: 'three hops: the third signed by the closed mandate cnf key', presentation: `${presented}~${third}`, want: [] },
  {
    desc: 'three hops, the intermediate one typed kb+sd-jwt+kb (as the AP2 reference SDK writes it)',
    presentation: `${document}~${intermediate}~${hop1(intermediate, { disclosures: [], key: agent.privateKey })}`,
    want: [],
  },
  { desc: 'an undisclosed payee (selective disclosure)', presentation: hop0({ disclosures: [openMandate] }), want: [] },
  {
    desc: 'a disclosure whose content changed (its digest is referenced nowhere)',
    presentation: hop0({ disclosures: [payee, forgedOpen] }),
    want: ['disclosure_digest_mismatch'],
  },
  {
    desc: 'a disclosure added',
    presentation: hop0({ disclosures: [payee, openMandate, disclosure({ id: 'merchant_2' })] }),
    want: ['disclosure_digest_mismatch'],
  },
  {
    desc: 'a disclosure duplicated',
    presentation: hop0({ disclosures: [payee, openMandate, payee] }),
    want: ['disclosure_digest_mismatch'],
  },
  {
    desc: 'a disclosure dropped from hop 0 after hop 1 was signed',
    presentation: presented.replace(`~${payee}`, ''),
    want: ['sd_hash_mismatch'],
  },
  {
    desc: 'hop 1 signed by a key other than the disclosed cnf key',
    presentation: `${document}~${hop1(document, { key: attacker.privateKey })}`,
    want: ['key_binding_invalid'],
  },
  {
    desc: 'hop 1 with a wrong sd_hash',
    presentation: `${document}~${hop1(document, { sdHash: sha('another hop~') })}`,
    want: ['sd_hash_mismatch'],
  },
  {
    desc: 'hop 1 without typ kb+sd-jwt',
    presentation: `${document}~${hop1(document, { header: { alg: 'ES256', typ: 'JWT' } })}`,
    want: ['key_binding_invalid'],
  },
  {
    desc: 'hop 0 with alg none',
    presentation: hop0({ header: { alg: 'none', typ: 'dc+sd-jwt', kid: 'issuer-1' }, key: null }),
    want: ['signature_invalid'],
  },
  {
    desc: 'hop 1 with alg none',
    presentation: `${document}~${hop1(document, { header: { alg: 'none', typ: 'kb+sd-jwt' }, key: null })}`,
    want: ['signature_invalid'],
  },
  {
    desc: 'hop 0 signed by a key the header names for itself',
    presentation: hop0({ header: { ...header0, jwk: jwkOf(attacker.publicKey) }, key: attacker.privateKey }),
    want: ['signature_invalid'],
  },
  {
    desc: 'hop 0 naming a kid the issuer JWKS does not hold',
    presentation: hop0({ header: { ...header0, kid: 'issuer-2' } }),
    want: ['issuer_key_unknown'],
  },
  { desc: 'a padded disclosure (bad base64url)', presentation: document.replace(`~${payee}`, `~${payee}=`), want: ['disclosure_digest_mismatch'] },
  { desc: 'a disclosure in the standard alphabet', presentation: document.replace(`~${payee}`, `~+${payee}`), want: ['disclosure_digest_mismatch'] },
  { desc: 'no trailing tilde', presentation: document.slice(0, -1), want: ['schema_invalid'] },
  {
    desc: '_sd_alg sha-512',
    presentation: hop0({ payload: { ...payload0, _sd_alg: 'sha-512' } }),
    want: ['disclosure_digest_mismatch'],
  },
  {
    desc: 'a closed hop shown without its open parent (its signer is a cnf key not presented)',
    presentation: hop1Text,
    want: ['issuer_key_unknown'],
  },
  {
    desc: 'a mandate content of an unknown vct',
    presentation: hop0({ disclosures: [unknownVct], payload: { ...payload0, delegate_payload: [{ '...': sha(unknownVct) }] } }),
    want: ['unsupported_vct'],
  },
  {
    desc: 'a second open payment mandate, re-delegated in hop 1 (AP2 multi-hop: signatures hold; its scope is the service question)',
    presentation: `${document}~${hop1(document, { disclosures: [secondOpen], delegate: [secondOpen] })}`,
    want: [],
  },
  {
    desc: 'hop 1 without a nonce',
    presentation: `${document}~${hop1(document, { drop: 'nonce' })}`,
    want: ['key_binding_invalid'],
  },
];

const allowance = {
  checkout_session_id: 'cs_01',
  currency: 'usd',
  expires_at: '2026-12-01T00:00:00Z',
  max_amount: 2000,
  merchant_id: 'acme',
  reason: 'one_time',
};
// keys already in RFC 8785 order; ASCII strings and integers only, so JSON.stringify is the canonical form
const acpDocument = JSON.stringify(allowance);
const ap2Entry = {
  mandate_id: 'ns:mandate:0195f3a0-0000-7000-8000-000000000001',
  format: 'ap2',
  digest: sha(document),
  document,
  issuer: 'https://issuer.example',
  issuer_jwks: issuerJwks,
  presented,
};
const acpEntry = {
  mandate_id: 'ns:allowance:0195f3a0-0000-7000-8000-000000000002',
  format: 'acp',
  digest: sha(acpDocument),
  document: acpDocument,
};
const binding = (e: { mandate_id: string; format: string; digest: string }, single = false): Json => ({
  mandate_id: e.mandate_id,
  format: e.format,
  digest: e.digest,
  single_use: single,
  used: false,
});
const pack = (entries: unknown[] | undefined, bindings: Json[]): Json => ({
  snapshot: {
    grants: [{ grant_id: 'ns:grant:root' }, ...bindings.map((mandate, i) => ({ grant_id: `ns:grant:m${i}`, mandate }))],
  },
  ...(entries === undefined ? {} : { mandates: entries }),
});

const evidence = [
  { desc: 'an AP2 mandate and an ACP allowance, each with its binding', pack: pack([ap2Entry, acpEntry], [binding(ap2Entry), binding(acpEntry, true)]), want: 'valid' },
  { desc: 'a binding without its entry', pack: pack([acpEntry], [binding(ap2Entry)]), want: 'mandate_missing' },
  { desc: 'no mandates member at all', pack: pack(undefined, [binding(ap2Entry)]), want: 'mandate_missing' },
  {
    desc: 'an entry whose document changed',
    pack: pack([{ ...ap2Entry, document: document.replace(`~${payee}`, '') }], [binding(ap2Entry)]),
    want: 'mandate_digest_mismatch',
  },
  {
    desc: 'an ACP allowance whose amount changed',
    pack: pack([{ ...acpEntry, document: acpDocument.replace('2000', '20000') }], []),
    want: 'mandate_digest_mismatch',
  },
  {
    desc: 'presented with a key-binding hop signed by another key',
    pack: pack([{ ...ap2Entry, presented: `${document}~${hop1(document, { key: attacker.privateKey })}` }], [binding(ap2Entry)]),
    want: 'mandate_signature_invalid',
  },
  {
    desc: 'presented that does not extend the document',
    pack: pack([{ ...ap2Entry, presented: hop1Text }], [binding(ap2Entry)]),
    want: 'mandate_signature_invalid',
  },
  {
    desc: 'issuer_jwks of another issuer',
    pack: pack([{ ...ap2Entry, issuer_jwks: { keys: [{ ...jwkOf(attacker.publicKey), kid: 'issuer-1' }] } }], [binding(ap2Entry)]),
    want: 'mandate_signature_invalid',
  },
  {
    desc: 'an AP2 entry that does not name the issuer its document names',
    pack: pack([{ ...ap2Entry, issuer: undefined }], [binding(ap2Entry)]),
    want: 'mandate_signature_invalid',
  },
  { desc: 'mandates is not an array', pack: pack({ not: 'an array' } as unknown as unknown[], []), want: 'malformed_mandates' },
];

mkdirSync(fileURLToPath(new URL('../mandates/', import.meta.url)), { recursive: true });
writeFileSync(
  out,
  JSON.stringify(
    {
      generator: 'vectors/scripts/generate-mandate-chain.ts',
      issuer: 'https://issuer.example',
      issuer_jwks: issuerJwks,
      audience: 'https://aar.example',
      cases,
      evidence,
    },
    null,
    2,
  ) + '\n',
);
console.log(`wrote ${out}: ${cases.length} presentations, ${evidence.length} evidence cases`);
