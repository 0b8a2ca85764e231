/**
 * The body of a webhook delivery (core's webhookDeliveryBody) made with one canonical-JSON pass over the envelope
 * instead of two. An unsigned envelope is cut into its RFC 8785 members in key order, split where the `signature`
 * member goes: `{before,after}` (a comma between when both are there) is exactly core's `signingBytes` of the
 * envelope (what the CONTRACT section 4 signature covers), and `{before,"signature":{...},after}` is exactly
 * `canonicalBytes` of the signed envelope, because RFC 8785 sorts an object's members by key (UTF-16 code units, as
 * Array.prototype.sort and `<` compare strings) and writes each member independently of the others. Members whose
 * value is undefined are left out, as canonicalJson leaves them out; a `signature` member already there is dropped
 * (it is never signed over). Tests: webhook-delivery-thread.test.ts and webhook-delivery-signer.test.ts compare
 * the bytes with core's.
 */
import {
  AarError,
  canonicalJson,
  encodeBase64Url,
  signCoseSign1,
  utf8Encode,
  WEBHOOK_CONTENT_TYPES,
  type DocumentSigner,
  type WebhookDeliveryBody,
  type WebhookProfile,
} from '@aar/core';

export interface EnvelopeMembers {
  before: string;
  after: string;
}

export function envelopeMembers(envelope: object): EnvelopeMembers {
  const record = envelope as Record<string, unknown>;
  const before: string[] = [];
  const after: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const value = record[key];
    if (value === undefined || key === 'signature') continue;
    (key < 'signature' ? before : after).push(`${canonicalJson(key)}:${canonicalJson(value)}`);
  }
  return { before: before.join(','), after: after.join(',') };
}

/** The body `profile` sends for `envelope`, signed by `signer`: byte for byte core's webhookDeliveryBody. */
export async function envelopeBody(
  profile: WebhookProfile,
  envelope: object,
  signer: DocumentSigner,
): Promise<WebhookDeliveryBody> {
  const { before, after } = envelopeMembers(envelope);
  const signature = await signer.sign(utf8Encode(`{${before}${before && after ? ',' : ''}${after}}`));
  if (!(signature instanceof Uint8Array) || signature.length !== 64) {
    throw new AarError('internal', 'the signer did not return a 64-byte ed25519 signature');
  }
  const member = `"signature":${canonicalJson({ algorithm: 'ed25519', key_id: signer.keyId, signature: encodeBase64Url(signature) })}`;
  const json = utf8Encode(`{${before ? `${before},` : ''}${member}${after ? `,${after}` : ''}}`);
  const body = profile === 'cose' ? await signCoseSign1(json, signer) : json;
  return { body, contentType: WEBHOOK_CONTENT_TYPES[profile] };
}
