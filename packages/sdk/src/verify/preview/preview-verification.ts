/**
 * The common frame of the v1.1 preview documents' offline verifiers (CONTRACT sections 4 and 22): a document is
 * valid only when its Ed25519 signature verifies with a key of the JWKS the CALLER passed (the `key_id` it names is
 * only looked up there, never fetched or trusted on its own), its `schema_version` is the one asked for, and each of
 * its own consistency checks holds. Every check is reported, in order, with a stable failure code, like the
 * evidence-pack verifier; `valid` is true only when all passed.
 * Attacker assumption: the document is any JSON value (or a hostile object: throwing getters, proxies). Nothing here
 * throws: a check that cannot read what it needs fails `malformed_document`.
 */
import type { VerifyDocumentFailure } from '@aar/core';
import type { TrustedKeySource } from '../trusted-key-source.ts';
import { verifyDocument } from '../verify-document.ts';

export interface PreviewCheck {
  /** `signature`, `schema_version`, then the document's own checks */
  check: string;
  valid: boolean;
  /** a signature failure (`unknown_key`, `signature_mismatch`…), `schema_version_mismatch`, `malformed_document`,
   * or the document check's own code */
  failure?: string;
  /** where the failure is, as an RFC 6901 pointer or a short phrase */
  detail?: string;
}

export interface PreviewVerificationResult {
  valid: boolean;
  algorithm: 'ed25519';
  /** the `key_id` of the document's signature; null when it carries none */
  key_id: string | null;
  /** the schema version the verifier checked for */
  schema_version: string;
  checks: PreviewCheck[];
}

/** What a document check answers: undefined when it holds, else its failure (and where). */
export type CheckOutcome = undefined | { failure: string; detail?: string };

export type DocumentCheck = (doc: Record<string, unknown>) => CheckOutcome;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function fail(failure: string, detail?: string): CheckOutcome {
  return detail === undefined ? { failure } : { failure, detail };
}

function runCheck(check: string, doc: unknown, fn: DocumentCheck): PreviewCheck {
  if (!isRecord(doc)) return { check, valid: false, failure: 'malformed_document', detail: 'not a json object' };
  let outcome: CheckOutcome;
  try {
    outcome = fn(doc);
  } catch {
    // Only hostile shapes reach here; what the check could not read it cannot vouch for.
    outcome = { failure: 'malformed_document' };
  }
  return outcome === undefined ? { check, valid: true } : { check, valid: false, ...outcome };
}

/**
 * Verifies `doc` as a `schemaVersion` document: signature, schema version, then `checks` in their order (each run
 * even when an earlier one failed, so a caller sees every problem).
 */
export async function verifyPreviewDocument(
  doc: unknown,
  trusted: TrustedKeySource,
  schemaVersion: string,
  checks: ReadonlyArray<readonly [name: string, check: DocumentCheck]>,
): Promise<PreviewVerificationResult> {
  let keyId: string | null = null;
  let signature: PreviewCheck;
  try {
    const result = await verifyDocument(doc, trusted);
    keyId = result.key_id ?? null;
    signature = result.valid
      ? { check: 'signature', valid: true }
      : {
          check: 'signature',
          valid: false,
          failure: result.failure ?? ('signature_mismatch' as VerifyDocumentFailure),
        };
  } catch {
    // A JwksSource that throws (network down) is a refusal, not a crash of the caller's verification.
    signature = { check: 'signature', valid: false, failure: 'unknown_key' };
  }
  const results: PreviewCheck[] = [
    signature,
    runCheck('schema_version', doc, (d) =>
      d.schema_version === schemaVersion ? undefined : fail('schema_version_mismatch', '/schema_version'),
    ),
    ...checks.map(([name, fn]) => runCheck(name, doc, fn)),
  ];
  return {
    valid: results.every((c) => c.valid),
    algorithm: 'ed25519',
    key_id: keyId,
    schema_version: schemaVersion,
    checks: results,
  };
}

/** The first failed check of a result, if any (what a caller usually wants to show). */
export function firstFailure(result: PreviewVerificationResult): PreviewCheck | undefined {
  return result.checks.find((c) => !c.valid);
}
