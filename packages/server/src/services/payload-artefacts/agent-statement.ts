/**
 * The agent's optional signature over a payload artefact (docs/artefacts.md "The agent's signature"). It reuses the
 * one signature scheme of the service (CONTRACT section 4): the agent signs, with the Ed25519 key registered on its
 * entity (the key authorize checks its RFC 9421 signatures with), the statement
 *   { schema_version: "ns.payload_artefact_statement.v1", kind, digest, policy_decision_id }
 * i.e. Ed25519 over the RFC 8785 bytes of that object, sent as `signature: { algorithm: "ed25519", key_id: <the
 * agent's entity id>, signature: <base64url> }`. Binding kind and decision as well as the digest means a signature
 * made for one decision (or one kind of payload) never verifies for another.
 * Attacker assumption: the caller (a runtime credential) chooses every member of `signature`, `key_id` included; the
 * only key ever tried is the one WE hold for the decision's agent (`entities.public_key_jwk`), by exact entity id,
 * and the algorithm is that key's. A key the message names, or another entity's key, never verifies anything.
 */
import { jwkThumbprint, parsePublicEd25519Jwk, verifyDocument, type Ed25519PublicJwk } from '@aar/core';

export const STATEMENT_SCHEMA = 'ns.payload_artefact_statement.v1';

export interface AgentSignature {
  algorithm: 'ed25519';
  key_id: string;
  signature: string;
}

export interface StatementFields {
  kind: string;
  digest: string;
  policy_decision_id: string;
}

/** The unsigned statement (the SDKs build the same object). */
export function artefactStatement(fields: StatementFields): Record<string, string> {
  return {
    schema_version: STATEMENT_SCHEMA,
    kind: fields.kind,
    digest: fields.digest,
    policy_decision_id: fields.policy_decision_id,
  };
}

export type SignatureVerdict =
  | { ok: true; thumbprint: string | null }
  | { ok: false; reason: 'signature_missing' | 'signature_key_unknown' | 'signature_invalid' };

/**
 * `agentKeyJwk`: the agent's registered key (JSON text), null when it has none or is erased. An agent with a key
 * must sign (as authorize requires its RFC 9421 signature); an unsigned artefact of a keyless agent is accepted.
 */
export async function checkAgentSignature(
  fields: StatementFields,
  signature: AgentSignature | undefined,
  agentEntityId: string,
  agentKeyJwk: string | null,
): Promise<SignatureVerdict> {
  if (agentKeyJwk === null) {
    return signature === undefined ? { ok: true, thumbprint: null } : { ok: false, reason: 'signature_key_unknown' };
  }
  if (signature === undefined) return { ok: false, reason: 'signature_missing' };
  let key: Ed25519PublicJwk;
  try {
    key = { ...parsePublicEd25519Jwk(JSON.parse(agentKeyJwk), ''), kid: agentEntityId };
  } catch {
    return { ok: false, reason: 'signature_key_unknown' };
  }
  const verified = await verifyDocument({ ...artefactStatement(fields), signature }, (keyId) =>
    keyId === agentEntityId ? key : undefined,
  );
  if (!verified.valid) return { ok: false, reason: 'signature_invalid' };
  return { ok: true, thumbprint: await jwkThumbprint(key) };
}
