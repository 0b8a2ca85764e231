// Full AP2 chains for tests, built with @sd-jwt/core and freshly generated keys (jose): issuer -> agent (trusted
// agent provider) and issuer -> user device -> agent (user credential), plus the single hops to build mutations.
// No vectors needed: importable by any test (server tests: packages/core/test/mandates/support/build-chain.ts).
import { webcrypto } from 'node:crypto';
import { SDJwtInstance } from '@sd-jwt/core';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { encodeBase64Url } from '../../../src/encoding/base64url.ts';
import { mandateDigest } from '../../../src/mandates/index.ts';
import { sha256Hasher } from '../../../src/mandates/ap2-hop.ts';

export interface TestKey {
  privateKey: webcrypto.CryptoKey;
  publicJwk: JWK;
  alg: 'ES256' | 'ES384' | 'ES512' | 'EdDSA';
}

export async function newKey(alg: TestKey['alg'] = 'ES256', kid?: string): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  if (kid !== undefined) publicJwk.kid = kid;
  return { privateKey: privateKey as webcrypto.CryptoKey, publicJwk, alg };
}

const SIGN_PARAMS = {
  ES256: { name: 'ECDSA', hash: 'SHA-256' },
  ES384: { name: 'ECDSA', hash: 'SHA-384' },
  ES512: { name: 'ECDSA', hash: 'SHA-512' },
  EdDSA: { name: 'Ed25519' },
} as const;

export async function signText(key: TestKey, data: string): Promise<string> {
  const signature = await webcrypto.subtle.sign(SIGN_PARAMS[key.alg], key.privateKey, new TextEncoder().encode(data));
  return encodeBase64Url(new Uint8Array(signature));
}

let saltCounter = 0;
/** Salts for the tests: random (crypto), 16 bytes. */
function salt(length: number): string {
  saltCounter++;
  return encodeBase64Url(webcrypto.getRandomValues(new Uint8Array(length)));
}

/** One hop ("jwt~d~d~"), issued with @sd-jwt/core: `frame` says which parts are selectively disclosable. */
export async function issueHop(
  key: TestKey,
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  frame?: Record<string, unknown>,
): Promise<string> {
  const sdjwt = new SDJwtInstance({
    hasher: sha256Hasher,
    hashAlg: 'sha-256',
    saltGenerator: salt,
    signAlg: key.alg,
    signer: (data: string) => signText(key, data),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const text = await sdjwt.issue(payload, frame as any, { header });
  return text.endsWith('~') ? text : `${text}~`;
}

export const NOW = 1_800_000_000; // 2027-01-15T08:00:00Z
export const AUDIENCE = 'https://aar.example';

export function openPaymentContent(agent: JWK, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    vct: 'mandate.payment.open.1',
    constraints: [
      { type: 'payment.amount_range', currency: 'EUR', max: 20000, min: 0 },
      {
        type: 'payment.allowed_payees',
        allowed: [
          { id: 'merchant_1', name: 'Demo Merchant', website: 'https://demo-merchant.example' },
          { id: 'merchant_2', name: 'Other Merchant' },
        ],
      },
      // budget.max is in major units (see ap2-scope.ts): 500.00 EUR
      { type: 'payment.budget', currency: 'EUR', max: 500 },
      { type: 'payment.agent_recurrence', frequency: 'MONTHLY' },
      { type: 'payment.reference', conditional_transaction_id: 'FzLoxbbtgQGYZxoSM2NJYJtkFTSsdfUBoVEQ12k7JN8' },
    ],
    cnf: { jwk: agent },
    iat: NOW - 100,
    exp: NOW + 3600,
    ...overrides,
  };
}

/** The open payment content's selectively disclosable parts: the content itself and each allowed payee. */
export const OPEN_PAYMENT_FRAME = {
  delegate_payload: { _sd: [0], 0: { constraints: { 1: { allowed: { _sd: [0, 1] } } } } },
};

export function closedPaymentContent(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    vct: 'mandate.payment.1',
    transaction_id: 'NivWhuqfzcvZNapvIEJ2-3tsdQLkiuIcye2g46WVgX8',
    payee: { id: 'merchant_1', name: 'Demo Merchant', website: 'https://demo-merchant.example' },
    payment_amount: { amount: 19900, currency: 'EUR' },
    payment_instrument: { id: 'ns:card_token:tok_1', type: 'card', description: 'Card ending 4242' },
    iat: NOW - 10,
    ...overrides,
  };
}

export interface KbOptions {
  aud?: string;
  nonce?: string;
  iat?: number;
  sdHash?: string;
  typ?: string;
  extraPayload?: Record<string, unknown>;
  extraHeader?: Record<string, unknown>;
}

/** A key-binding hop (kb+sd-jwt) over `previousHop`, signed by `key`, carrying `contents` as delegate_payload. */
export async function kbHop(
  key: TestKey,
  previousHop: string,
  contents: Array<Record<string, unknown>>,
  options: KbOptions = {},
): Promise<string> {
  return issueHop(
    key,
    { typ: options.typ ?? 'kb+sd-jwt', ...options.extraHeader },
    {
      delegate_payload: contents,
      iat: options.iat ?? NOW - 5,
      aud: options.aud ?? AUDIENCE,
      nonce: options.nonce ?? `nonce-${saltCounter}-${salt(8)}`,
      sd_hash: options.sdHash ?? mandateDigest(previousHop),
      ...options.extraPayload,
    },
    { delegate_payload: { _sd: contents.map((_, i) => i) } },
  );
}

export function chain(...hops: string[]): string {
  return hops.join('~');
}

export interface Parties {
  issuer: TestKey;
  user: TestKey;
  agent: TestKey;
  issuers: Array<{ issuer: string; keys: JWK[] }>;
}

export const ISSUER = 'https://agent-provider.example';

export async function parties(): Promise<Parties> {
  const issuer = await newKey('ES256', 'issuer-key-1');
  return {
    issuer,
    user: await newKey(),
    agent: await newKey(),
    issuers: [{ issuer: ISSUER, keys: [issuer.publicJwk] }],
  };
}

/** Trusted agent provider: hop 0 the provider's open payment mandate, hop 1 the agent's closed payment. */
export async function agentProviderChain(
  p: Parties,
  options: { open?: Record<string, unknown>; closed?: Record<string, unknown>; kb?: KbOptions } = {},
): Promise<{ open: string; presentation: string }> {
  const open = await issueHop(
    p.issuer,
    { typ: 'dc+sd-jwt', kid: 'issuer-key-1' },
    { iss: ISSUER, iat: NOW - 100, delegate_payload: [openPaymentContent(p.agent.publicJwk, options.open)] },
    OPEN_PAYMENT_FRAME,
  );
  const closed = await kbHop(p.agent, open, [closedPaymentContent(options.closed)], options.kb);
  return { open, presentation: chain(open, closed) };
}

/** User credential: issuer -> user device (top-level cnf) -> agent. */
export async function userCredentialChain(p: Parties): Promise<{ presentation: string; hops: string[] }> {
  const credential = await issueHop(
    p.issuer,
    { typ: 'dc+sd-jwt', kid: 'issuer-key-1' },
    { iss: ISSUER, vct: 'com.example.payment_credential', card_last_four: '4242', cnf: { jwk: p.user.publicJwk } },
    { _sd: ['card_last_four'] },
  );
  const device = await kbHop(p.user, credential, [openPaymentContent(p.agent.publicJwk)]);
  const agent = await kbHop(p.agent, device, [closedPaymentContent()]);
  return { presentation: chain(credential, device, agent), hops: [credential, device, agent] };
}
