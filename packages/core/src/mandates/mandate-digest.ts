/**
 * The digest that names a mandate document (DESIGN-29 section 5): base64url without padding of SHA-256 over the
 * UTF-8 bytes of the stored document, exactly as submitted (AP2: the presentation text; ACP: the RFC 8785 canonical
 * JSON of the allowance). The same function gives an SD-JWT `sd_hash` over a hop's text (RFC 9901 section 4.3.1).
 * Throws `invalid_request` for a text holding a lone surrogate (it has no UTF-8 bytes).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { encodeBase64Url } from '../encoding/base64url.ts';
import { utf8Encode } from '../encoding/utf8.ts';

export function mandateDigest(document: string): string {
  return encodeBase64Url(sha256(utf8Encode(document)));
}
