/** What verifying an agent request's signature found: a status, the signature's facts and a stable failure code. */
import type { ContentDigestFailure } from './content-digest.ts';
import type { SignatureBaseFailure } from './signature-base.ts';

export type RequestSignatureStatus = 'valid' | 'missing' | 'invalid' | 'stale';

export type RequestSignatureFailure =
  | 'missing_signature'
  | 'malformed_signature_input'
  | 'malformed_signature'
  | 'label_mismatch'
  | 'multiple_signatures'
  | 'missing_component'
  | 'unsupported_parameter'
  | 'missing_created'
  | 'invalid_created'
  | 'missing_nonce'
  | 'invalid_nonce'
  | 'missing_keyid'
  | 'invalid_keyid'
  | 'invalid_expires'
  | 'alg_mismatch'
  | 'unknown_key'
  | 'invalid_key'
  | SignatureBaseFailure
  | ContentDigestFailure
  | 'signature_mismatch'
  | 'created_in_future'
  | 'too_old'
  | 'expired';

export interface RequestSignatureResult {
  status: RequestSignatureStatus;
  /** the signature's label (any label is accepted) */
  label?: string;
  keyid?: string;
  /** unix seconds */
  created?: number;
  nonce?: string;
  /** the covered components, in signed order */
  components?: string[];
  /** a stable code; absent when `status` is `valid` */
  failure?: RequestSignatureFailure;
  /** the component a component failure is about */
  component?: string;
  /**
   * The `@target-uri` values the signature was checked against, as they appear in the signature base: the one it
   * verified for (`valid`, `stale`), else every candidate. Absent when the signature could not be read at all.
   */
  targetUris?: string[];
}
