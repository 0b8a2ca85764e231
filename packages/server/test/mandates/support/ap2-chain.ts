/**
 * AP2 presentations made in the tests with test keys (an issuer, the principal's device, an agent), hop by hop as
 * AP2 v0.2 chains them: hop 0 is the issuer-signed SD-JWT naming the device key (`cnf`), hop 1 a `kb+sd-jwt` signed
 * by the device key, bound to hop 0 (`sd_hash`), with `aud` and `nonce`, disclosing the open payment mandate (whose
 * `cnf` names the agent key). Disclosures are made as RFC 9901 says: base64url of the JSON `[salt, value]`, named in
 * the payload by the base64url SHA-256 of that text.
 */
import { createHash, randomBytes } from 'node:crypto';
import { CompactSign, exportJWK, generateKeyPair, type JWK, type CryptoKey } from 'jose';

export interface TestKey {
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function testKey(kid?: string): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  return { privateKey, publicJwk: kid ? { ...publicJwk, kid } : publicJwk };
}

export interface Ap2Keys {
  issuer: TestKey;
  device: TestKey;
  agent: TestKey;
}

export async function ap2Keys(): Promise<Ap2Keys> {
  return { issuer: await testKey('issuer-key-1'), device: await testKey(), agent: await testKey() };
}

const b64url = (data: string | Buffer): string => Buffer.from(data).toString('base64url');
const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64url');

async function sign(header: Record<string, unknown>, payload: Record<string, unknown>, key: CryptoKey) {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader(header as never)
    .sign(key);
}

export interface ChainOptions {
  issuer: string;
  audience: string;
  nowSeconds: number;
  /** the open payment mandate's constraints */
  constraints: unknown[];
  nonce?: string;
  /** seconds after now the mandate expires (default one day) */
  ttl?: number;
  /** disclose the mandate twice */
  duplicateDisclosure?: boolean;
}

/** An issuer -> device -> (open payment mandate for the agent) chain; returns the presentation text. */
export async function openPaymentChain(keys: Ap2Keys, o: ChainOptions): Promise<string> {
  const exp = o.nowSeconds + (o.ttl ?? 86_400);
  const hop0 = await sign(
    { alg: 'ES256', typ: 'dc+sd-jwt', kid: keys.issuer.publicJwk.kid },
    { iss: o.issuer, iat: o.nowSeconds, exp, cnf: { jwk: keys.device.publicJwk }, _sd_alg: 'sha-256' },
    keys.issuer.privateKey,
  );
  const hop0Text = `${hop0}~`;
  const content = {
    vct: 'mandate.payment.open.1',
    constraints: o.constraints,
    cnf: { jwk: keys.agent.publicJwk },
    iat: o.nowSeconds,
    exp,
  };
  const disclosure = b64url(JSON.stringify([randomBytes(16).toString('base64url'), content]));
  const hop1 = await sign(
    { alg: 'ES256', typ: 'kb+sd-jwt' },
    {
      delegate_payload: [{ '...': sha256(disclosure) }],
      _sd_alg: 'sha-256',
      iat: o.nowSeconds,
      aud: o.audience,
      nonce: o.nonce ?? randomBytes(16).toString('base64url'),
      sd_hash: sha256(hop0Text),
    },
    keys.device.privateKey,
  );
  const disclosures = o.duplicateDisclosure ? `${disclosure}~${disclosure}~` : `${disclosure}~`;
  return `${hop0Text}~${hop1}~${disclosures}`;
}

/** Constraints of an open payment mandate: at most `max` minor units of `currency` per purchase, at `payees`. */
export function paymentConstraints(max: number, currency: string, payees: string[]): unknown[] {
  return [
    { type: 'payment.amount_range', currency, max },
    {
      type: 'payment.allowed_payees',
      allowed: payees.map((id) => ({ id, name: `Payee ${id}`, website: `https://${id}.example` })),
    },
    { type: 'payment.reference', conditional_transaction_id: 'checkout-digest-1' },
  ];
}
