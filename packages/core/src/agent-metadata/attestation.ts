/**
 * Agent metadata attestations (issue 30, `ns.agent_metadata_attestation.v1`): an agent states which model, software
 * version and operator it runs as, and signs that statement with its own registered Ed25519 key (CONTRACT section 4's
 * scheme, `key_id` the agent's entity id). The service stores the latest one as the agent's current metadata, puts it
 * into every decision's snapshot (aar-decide/1.5.0) and the document into the evidence pack.
 * Attacker assumption: the document is anything a caller sent. It names its own `key_id`, which is never used to find
 * a key: the only key it is checked against is the one the caller of `verifyAgentMetadataAttestation` holds for that
 * agent (the service: the entity's registered key; offline: the key in the pack's snapshot).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { isRecord } from '../decide/guards.ts';
import { encodeBase64Url } from '../encoding/base64url.ts';
import { canonicalBytes } from '../json/canonical-json.ts';
import type { Ed25519PublicJwk } from '../signing/ed25519-jwk.ts';
import type { DocumentSignature } from '../signing/sign-document.ts';
import { verifyDocument, type VerifyDocumentFailure } from '../signing/verify-document.ts';

export const AGENT_METADATA_ATTESTATION_SCHEMA = 'ns.agent_metadata_attestation.v1';

/** The three members an agent attests, each 1 to 256 characters. */
export const AGENT_METADATA_FIELDS = ['model', 'software_version', 'operator'] as const;

export const AGENT_METADATA_MAX_LENGTH = 256;

export const AGENT_METADATA_DIGEST_PATTERN = /^sha-256:[A-Za-z0-9_-]{43}$/;

export interface AgentMetadataAttestation {
  schema_version: typeof AGENT_METADATA_ATTESTATION_SCHEMA;
  /** the agent, `ns:entity:agent:<id>`: the key that signs is this entity's registered key */
  agent_entity_id: string;
  model: string;
  software_version: string;
  operator: string;
  /** ISO 8601 UTC, when the agent made the statement */
  issued_at: string;
  signature: DocumentSignature;
}

/**
 * `sha-256:` + base64url of SHA-256 over the RFC 8785 bytes of the WHOLE signed document (signature included): the
 * digest names exactly the document the agent signed, as stored. Throws on a value that is not canonical JSON.
 */
export function agentMetadataDigest(doc: object): string {
  return `sha-256:${encodeBase64Url(sha256(canonicalBytes(doc)))}`;
}

export type AttestationFailure =
  'malformed_attestation' | 'agent_mismatch' | Exclude<VerifyDocumentFailure, 'unknown_key'> | 'unknown_key';

/**
 * The document is a well-formed attestation for `agentEntityId`, signed by `key` (whatever `key_id` it names).
 * Never throws.
 */
export async function verifyAgentMetadataAttestation(
  doc: unknown,
  agentEntityId: string,
  key: Ed25519PublicJwk | undefined,
): Promise<{ valid: true } | { valid: false; failure: AttestationFailure }> {
  try {
    if (!isWellFormedAttestation(doc)) return { valid: false, failure: 'malformed_attestation' };
    if (doc.agent_entity_id !== agentEntityId) return { valid: false, failure: 'agent_mismatch' };
    if (key === undefined) return { valid: false, failure: 'unknown_key' };
    // the lookup ignores the kid the document names: only the key we hold for this agent can verify it
    const result = await verifyDocument(doc, () => key);
    return result.valid ? { valid: true } : { valid: false, failure: result.failure ?? 'signature_mismatch' };
  } catch {
    return { valid: false, failure: 'malformed_attestation' };
  }
}

/** Exactly the members of AgentMetadataAttestation, each of its type (the JSON Schema says the same). */
export function isWellFormedAttestation(doc: unknown): doc is AgentMetadataAttestation {
  if (!isRecord(doc)) return false;
  const allowed = new Set(['schema_version', 'agent_entity_id', ...AGENT_METADATA_FIELDS, 'issued_at', 'signature']);
  if (!Object.keys(doc).every((k) => allowed.has(k)) || Object.keys(doc).length !== allowed.size) return false;
  if (doc.schema_version !== AGENT_METADATA_ATTESTATION_SCHEMA) return false;
  if (typeof doc.agent_entity_id !== 'string' || typeof doc.issued_at !== 'string') return false;
  if (!isRecord(doc.signature)) return false;
  return AGENT_METADATA_FIELDS.every((f) => isMetadataText(doc[f]));
}

export function isMetadataText(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= AGENT_METADATA_MAX_LENGTH;
}
