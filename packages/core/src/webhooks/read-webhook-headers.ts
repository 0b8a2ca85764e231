/**
 * Reads the Standard Webhooks headers of a delivery. Attacker assumption: every header is hostile and may repeat.
 * A repeated `webhook-id`, `webhook-timestamp` or `webhook-key-id` is malformed (which copy was signed?); repeated
 * `webhook-signature` lines are one list, as the field's grammar allows.
 */
import type { HeaderSource } from '../http-signatures/http-request.ts';
import { headerLines } from '../http-signatures/http-request.ts';
import { isWebhookId, parseWebhookTimestamp } from './signed-content.ts';
import type { WebhookSignatureEntry } from './webhook-signature-header.ts';
import { parseWebhookSignatureHeader } from './webhook-signature-header.ts';
import {
  WEBHOOK_ID_HEADER,
  WEBHOOK_KEY_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from './webhook-profile.ts';
import type { WebhookVerificationResult } from './webhook-verification-result.ts';

export interface WebhookHeaders {
  webhookId: string;
  timestamp: number;
  signatures: WebhookSignatureEntry[];
  /** `webhook-key-id`, when sent: a hint that must agree with the key the signed body names */
  keyIdHint?: string;
}

export type ReadWebhookHeadersResult =
  { ok: true; headers: WebhookHeaders } | { ok: false; result: WebhookVerificationResult };

function refuse(code: 'missing_header' | 'malformed_header', detail: string): ReadWebhookHeadersResult {
  return { ok: false, result: { valid: false, code, detail } };
}

function single(headers: HeaderSource, name: string): string | undefined | null {
  const lines = headerLines(headers, name);
  if (lines === undefined) return undefined;
  return lines.length === 1 ? (lines[0] as string) : null;
}

export function readWebhookHeaders(headers: HeaderSource): ReadWebhookHeadersResult {
  const id = single(headers, WEBHOOK_ID_HEADER);
  if (id === undefined) return refuse('missing_header', WEBHOOK_ID_HEADER);
  if (id === null || !isWebhookId(id)) return refuse('malformed_header', WEBHOOK_ID_HEADER);
  const timestampText = single(headers, WEBHOOK_TIMESTAMP_HEADER);
  if (timestampText === undefined) return refuse('missing_header', WEBHOOK_TIMESTAMP_HEADER);
  const timestamp = timestampText === null ? undefined : parseWebhookTimestamp(timestampText);
  if (timestamp === undefined) return refuse('malformed_header', WEBHOOK_TIMESTAMP_HEADER);
  const signatureLines = headerLines(headers, WEBHOOK_SIGNATURE_HEADER);
  if (signatureLines === undefined) return refuse('missing_header', WEBHOOK_SIGNATURE_HEADER);
  const signatures = parseWebhookSignatureHeader(signatureLines);
  if (signatures === undefined) return refuse('malformed_header', WEBHOOK_SIGNATURE_HEADER);
  const hint = single(headers, WEBHOOK_KEY_ID_HEADER);
  if (hint === null || hint === '') return refuse('malformed_header', WEBHOOK_KEY_ID_HEADER);
  const read: WebhookHeaders = { webhookId: id, timestamp, signatures };
  if (hint !== undefined) read.keyIdHint = hint;
  return { ok: true, headers: read };
}
