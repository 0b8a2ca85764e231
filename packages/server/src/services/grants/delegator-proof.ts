/**
 * The delegator's consent to a sub-delegation (CONTRACT section 5). When the delegator (the parent grant's actor)
 * has a registered Ed25519 key, the request must carry `delegator_proof: { created, nonce, signature }`, where
 * `signature` (CONTRACT section 4 scheme, `key_id` = the delegator's entity id) covers the statement
 * `{ schema_version: "ns.delegation_statement.v1", delegator_entity_id, created, nonce, request }` and `request` is
 * the request body exactly as sent, without `delegator_proof`. The delegator can sign it before any id is minted.
 *
 * Attacker assumptions: the caller holds a credential that may act for the delegator's principal but not the
 * delegator's private key; the key is therefore taken only from the delegator's registration, the algorithm only
 * from the key; a statement is accepted within the signature window of the server's clock and once (its nonce).
 */
import {
  AarError,
  buildDelegationStatement,
  DELEGATION_NONCE_PATTERN,
  fieldError,
  jwkThumbprint,
  parsePublicEd25519Jwk,
  verifyDocument,
  type DelegationStatement,
  type LinkDelegation,
} from '@aar/core';

export interface DelegatorRecord {
  entity_id: string;
  public_key_jwk: string | null;
  key_thumbprint: string | null;
}

export interface VerifyDelegatorProofInput {
  delegator: DelegatorRecord;
  /** the body's `delegator_proof`, as sent (undefined when absent) */
  proof: unknown;
  /** the body without `delegator_proof` */
  request: Record<string, unknown>;
  now: Date;
  windowSeconds: number;
}

export interface VerifiedDelegatorProof {
  delegation: LinkDelegation;
  nonce: string;
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const PATH = '/delegator_proof';

/** The verified consent to keep in the link, or undefined when the delegator has no key (and none was sent). */
export async function verifyDelegatorProof(
  input: VerifyDelegatorProofInput,
): Promise<VerifiedDelegatorProof | undefined> {
  const { delegator, proof } = input;
  if (delegator.public_key_jwk === null) {
    if (proof !== undefined) {
      throw fieldError('invalid_request', PATH, `the delegator \`${delegator.entity_id}\` has no registered key`);
    }
    return undefined;
  }
  if (proof === undefined) {
    throw fieldError(
      'invalid_request',
      PATH,
      `is required: the delegator \`${delegator.entity_id}\` has a registered key and must sign the delegation`,
    );
  }
  if (typeof proof !== 'object' || proof === null || Array.isArray(proof)) {
    throw fieldError('invalid_request', PATH, 'must be an object `{ created, nonce, signature }`');
  }
  const { created, nonce, signature } = proof as Record<string, unknown>;
  if (typeof created !== 'string' || !ISO_UTC.test(created) || Number.isNaN(Date.parse(created))) {
    throw fieldError('invalid_request', `${PATH}/created`, 'must be an ISO 8601 UTC timestamp');
  }
  const skew = Math.abs(Date.parse(created) - input.now.getTime()) / 1000;
  if (skew > input.windowSeconds) {
    throw fieldError(
      'invalid_signature',
      `${PATH}/created`,
      `is more than ${input.windowSeconds} s from the server's clock`,
    );
  }
  if (typeof nonce !== 'string' || !DELEGATION_NONCE_PATTERN.test(nonce)) {
    throw fieldError('invalid_request', `${PATH}/nonce`, 'must be 16-128 characters of `[A-Za-z0-9_-]`');
  }
  const keyId = (signature as { key_id?: unknown } | null)?.key_id;
  if (keyId !== delegator.entity_id) {
    throw fieldError('invalid_signature', `${PATH}/signature/key_id`, `must be \`${delegator.entity_id}\``);
  }
  let key;
  try {
    key = { ...parsePublicEd25519Jwk(JSON.parse(delegator.public_key_jwk), ''), kid: delegator.entity_id };
  } catch (error) {
    throw new AarError('internal', 'the delegator key on record cannot be read', { cause: error });
  }
  const statement = {
    ...buildDelegationStatement({ delegator_entity_id: delegator.entity_id, created, nonce, request: input.request }),
    signature,
  } as DelegationStatement;
  const verified = await verifyDocument(statement, (id) => (id === delegator.entity_id ? key : undefined));
  if (!verified.valid) {
    throw fieldError('invalid_signature', `${PATH}/signature`, `does not verify (${verified.failure ?? 'invalid'})`);
  }
  return {
    nonce,
    delegation: {
      statement,
      delegator_key: { kty: key.kty, crv: key.crv, x: key.x, kid: delegator.entity_id },
      delegator_key_thumbprint: delegator.key_thumbprint ?? (await jwkThumbprint(key)),
    },
  };
}
