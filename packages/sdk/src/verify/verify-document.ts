/** core's signed-document verifier (CONTRACT section 4), also over a JwksSource. */
import { verifyDocument as verifyWithKeys, type VerifyDocumentResult } from '@aar/core';
import { resolveTrustedKeys, type TrustedKeySource } from './trusted-key-source.ts';

export async function verifyDocument(doc: unknown, trusted: TrustedKeySource): Promise<VerifyDocumentResult> {
  return verifyWithKeys(doc, await resolveTrustedKeys(trusted, doc));
}
