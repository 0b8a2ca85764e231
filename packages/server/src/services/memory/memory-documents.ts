/**
 * The two forms of `ns.memory_record.v1` (schemas/ns.memory_record.v1.schema.json, docs/memory.md), both signed with
 * the service key (CONTRACT section 4):
 * - `form: "record"`: who wrote what under which grant, its classification and retention, and `content_digest`
 *   (the salted digest of the content, memory-content.ts). It holds no content: the content is served beside it
 *   while it is kept, and the record stays verifiable once it is gone.
 * - `form: "tombstone"`: the end of a record (erased by the principal, or its retention expired): it names the
 *   record by `record_digest` and its place in the principal's chain (`sequence`, `previous_tombstone_digest`).
 * A digest of a signed form is base64url SHA-256 of its RFC 8785 text, signature included.
 */
import { canonicalJson, signDocument, type DocumentSignature } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { MemoryClassification, MemoryTombstoneReason } from '../../store/schema-memory.ts';
import { textDigest } from './memory-content.ts';

export const MEMORY_SCHEMA_VERSION = 'ns.memory_record.v1';

/** How the service knew the agent wrote it. */
export interface MemoryAuthorship {
  /** `rfc9421`: the agent's own request signature verified at write time; `credential`: signatures not required */
  method: 'rfc9421' | 'credential';
  /** RFC 7638 thumbprint of the agent key that verified the request signature (rfc9421 only) */
  agent_key_thumbprint: string | null;
  /** the signature's `created`, ISO 8601 (rfc9421 only) */
  signed_at: string | null;
  /** the runtime credential that sent it */
  token_id: string;
}

export interface UnsignedMemoryRecord {
  schema_version: typeof MEMORY_SCHEMA_VERSION;
  form: 'record';
  memory_record_id: string;
  issuer: string;
  principal_entity_id: string;
  agent_entity_id: string;
  grant_id: string;
  classification: MemoryClassification;
  retention_days: number;
  content_digest: string;
  content_bytes: number;
  authorship: MemoryAuthorship;
  created_at: string;
  retain_until: string;
}

export type MemoryRecordDocument = UnsignedMemoryRecord & { signature: DocumentSignature };

export interface UnsignedMemoryTombstone {
  schema_version: typeof MEMORY_SCHEMA_VERSION;
  form: 'tombstone';
  tombstone_id: string;
  memory_record_id: string;
  issuer: string;
  principal_entity_id: string;
  agent_entity_id: string;
  classification: MemoryClassification;
  record_digest: string;
  reason: MemoryTombstoneReason;
  sequence: number;
  previous_tombstone_digest: string | null;
  record_created_at: string;
  created_at: string;
}

export type MemoryTombstoneDocument = UnsignedMemoryTombstone & { signature: DocumentSignature };

export interface SignedText<T> {
  document: T;
  text: string;
  digest: string;
}

/** Signs `doc` with the current service key; returns it with its RFC 8785 text and that text's digest. */
export async function signMemoryDocument<T extends object>(
  ctx: AppContext,
  doc: T,
): Promise<SignedText<T & { signature: DocumentSignature }>> {
  const document = await signDocument(doc, ctx.keys.current());
  const text = canonicalJson(document);
  return { document, text, digest: textDigest(text) };
}
