/**
 * What every `webhook-signature` entry covers (Standard Webhooks): the bytes `{id}.{timestamp}.{body}`.
 * INVARIANT: the id holds no `.` and the timestamp only digits, so the content splits one way only: a signature
 * over one (id, timestamp, body) never covers another.
 */
import { utf8Encode } from '../encoding/utf8.ts';

/** Ids we send are `ns:event:<uuid>`; the class also admits Standard Webhooks' own `msg_<...>` ids. */
const WEBHOOK_ID = /^[A-Za-z0-9:_-]{1,256}$/;
/** Unix seconds in decimal: no sign, no fraction, no leading zero, at most 15 digits (far beyond any real clock). */
const TIMESTAMP = /^(?:0|[1-9][0-9]{0,14})$/;

export function isWebhookId(value: unknown): value is string {
  return typeof value === 'string' && WEBHOOK_ID.test(value);
}

/** The timestamp header's value as unix seconds; undefined unless it is strictly a decimal integer. */
export function parseWebhookTimestamp(text: string): number | undefined {
  return TIMESTAMP.test(text) ? Number(text) : undefined;
}

export function isWebhookTimestamp(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value < 1e15;
}

/** `{id}.{timestamp}.` followed by the exact body bytes. */
export function webhookSignedContent(webhookId: string, timestamp: number, body: Uint8Array): Uint8Array {
  const prefix = utf8Encode(`${webhookId}.${timestamp}.`);
  const content = new Uint8Array(prefix.length + body.length);
  content.set(prefix, 0);
  content.set(body, prefix.length);
  return content;
}
