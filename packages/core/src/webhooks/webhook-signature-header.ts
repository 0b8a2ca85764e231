/**
 * The `webhook-signature` header (Standard Webhooks): space-separated `<version>,<base64>` entries, several during a
 * secret or key rotation. `v1` is HMAC-SHA256 (32 bytes), `v1a` Ed25519 (64 bytes).
 * Attacker assumption: the header is hostile. Entries of a version we know must be strict padded base64 of exactly
 * the right length or the whole header is malformed (no "skip what does not parse"); entries of other versions are
 * ignored, as Standard Webhooks asks, so a later scheme can be added beside these. At most 8 entries: the work a
 * delivery can cost the receiver is bounded.
 */
import { encodeBase64, tryDecodeBase64 } from '../encoding/base64.ts';

export type WebhookSignatureVersion = 'v1' | 'v1a';

export interface WebhookSignatureEntry {
  version: WebhookSignatureVersion;
  signature: Uint8Array;
}

export const MAX_WEBHOOK_SIGNATURES = 8;

const LENGTHS: Readonly<Record<WebhookSignatureVersion, number>> = { v1: 32, v1a: 64 };
const ENTRY = /^([a-z0-9]{1,16}),([\x21-\x7e]{1,512})$/;

/** The known entries of the header's lines, in order; undefined when the header is malformed. */
export function parseWebhookSignatureHeader(lines: readonly string[]): WebhookSignatureEntry[] | undefined {
  const tokens = lines.flatMap((line) => line.split(' ')).filter((token) => token.length > 0);
  if (tokens.length === 0 || tokens.length > MAX_WEBHOOK_SIGNATURES) return undefined;
  const entries: WebhookSignatureEntry[] = [];
  for (const token of tokens) {
    const match = ENTRY.exec(token);
    if (match === null) return undefined;
    const version = match[1] as string;
    if (version !== 'v1' && version !== 'v1a') continue;
    const signature = tryDecodeBase64(match[2]);
    if (signature === undefined || signature.length !== LENGTHS[version]) return undefined;
    entries.push({ version, signature });
  }
  return entries;
}

/** The header value for `entries`, in order. */
export function formatWebhookSignatureHeader(entries: readonly WebhookSignatureEntry[]): string {
  return entries.map((entry) => `${entry.version},${encodeBase64(entry.signature)}`).join(' ');
}
