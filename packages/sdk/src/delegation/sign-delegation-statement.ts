/**
 * The delegator's consent to a sub-delegation in one call (CONTRACT section 5, docs/delegation.md): signs
 * `ns.delegation_statement.v1` `{ schema_version, delegator_entity_id, created, nonce, request }` with the
 * CONTRACT section 4 scheme (`key_id` = the delegator's entity id) and returns the `POST /v1/grants` body carrying
 * it as `delegator_proof`. The service verifies it against the key registered on the delegator (the parent grant's
 * actor), within its signature window, once per nonce.
 * INVARIANT: `request` is the body exactly as it will be sent, without `delegator_proof`; change nothing afterwards
 * (the statement covers every member; JSON key order and whitespace do not matter: RFC 8785).
 */
import {
  AarError,
  buildDelegationStatement,
  encodeBase64Url,
  signDocument,
  tryParseEntityId,
  type DocumentSignature,
} from '@aar/core';
import { prepareSigningKey, type RequestSignerPrivateKey } from '../request-signer/import-signing-key.ts';

export interface DelegatorProof {
  created: string;
  nonce: string;
  signature: DocumentSignature;
}

export interface SignDelegationStatementOptions {
  /** the delegator: the parent grant's actor (`ns:entity:agent:<id>`; `ns:agent:<id>` is accepted) */
  delegatorEntityId: string;
  /** the delegator's Ed25519 private key (a private JWK or a WebCrypto CryptoKey) */
  privateKey: RequestSignerPrivateKey;
  /** milliseconds since the epoch; default the system clock */
  now?: () => number;
  /** default 24 random bytes, base64url (32 characters) */
  nonce?: string;
}

const NONCE_BYTES = 24;

/** `request` plus its `delegator_proof`: the body to POST to /v1/grants. */
export async function signDelegationStatement<T extends Record<string, unknown>>(
  request: T,
  options: SignDelegationStatementOptions,
): Promise<T & { delegator_proof: DelegatorProof }> {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw new AarError('invalid_request', 'the grant request must be an object');
  }
  if (Object.hasOwn(request, 'delegator_proof')) {
    throw new AarError('invalid_request', 'the request already carries a `delegator_proof`');
  }
  // the service states the delegator in its canonical form: sign that form, or the statement will not match
  const delegator = tryParseEntityId(options.delegatorEntityId);
  if (delegator === undefined) {
    throw new AarError('invalid_request', `\`${options.delegatorEntityId}\` is not an entity id`);
  }
  const loadKey = prepareSigningKey(options.privateKey);
  const created = new Date(Math.floor((options.now ?? Date.now)() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  const nonce = options.nonce ?? encodeBase64Url(globalThis.crypto.getRandomValues(new Uint8Array(NONCE_BYTES)));
  const statement = buildDelegationStatement({ delegator_entity_id: delegator.id, created, nonce, request });
  const signed = await signDocument(statement, {
    keyId: delegator.id,
    async sign(message) {
      const key = await loadKey();
      return new Uint8Array(await globalThis.crypto.subtle.sign({ name: 'Ed25519' }, key, new Uint8Array(message)));
    },
  });
  return { ...request, delegator_proof: { created, nonce, signature: signed.signature } };
}
