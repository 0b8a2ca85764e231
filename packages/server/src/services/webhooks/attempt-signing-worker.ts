/**
 * The attempt-signing thread's code (attempt-signing-thread.ts starts it): everything an attempt's bytes need, off
 * the event loop that makes the POSTs. The body (the envelope signed per CONTRACT section 4, as RFC 8785 bytes,
 * wrapped in COSE_Sign1 for cose) comes from the same functions the main thread uses (delivery-envelope.ts), and
 * the headers from core's signWebhookAttempt, so the bytes are those of core's signWebhookDelivery by construction
 * (test/api/webhook-delivery-signer.test.ts compares them); only the thread differs.
 * Bodies depend on the event, the profile and the service key, never on the attempt: they are kept (bounded, least
 * recently used out), so retries and replays do not sign them again.
 * Secrets and private keys arrive by postMessage from this process's main thread and stay in this thread's memory;
 * nothing here is logged or sent anywhere else.
 */
import { sign as ed25519Sign } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { signWebhookAttempt, type DocumentSigner, type WebhookDeliveryBody } from '@aar/core';
import type { AttemptBatch, AttemptBatchReply, AttemptThreadOptions } from './attempt-signing-protocol.ts';
import { envelopeBody } from './delivery-envelope.ts';
import { bodyKey, LruMap, MacKeys } from './signing-caches.ts';

const { maxBodies } = workerData as AttemptThreadOptions;
let bodiesMade = 0;

const signers = new Map<number, DocumentSigner>();
const bodies = new LruMap<WebhookDeliveryBody>(maxBodies);
const { mac } = new MacKeys();

function signerOf(batch: AttemptBatch): DocumentSigner {
  if (batch.key) {
    const key = batch.key;
    if (key.asymmetricKeyType !== 'ed25519') throw new Error('not an ed25519 key');
    signers.set(batch.handle, {
      keyId: batch.keyId,
      sign: (message) => Promise.resolve(new Uint8Array(ed25519Sign(null, message, key))),
    });
  }
  const signer = signers.get(batch.handle);
  if (!signer || signer.keyId !== batch.keyId) throw new Error('unknown signing key');
  return signer;
}

async function bodyOf(item: AttemptBatch['items'][number], signer: DocumentSigner): Promise<WebhookDeliveryBody> {
  const key = bodyKey(item.profile, signer.keyId, item.envelope.event_id);
  const known = bodies.get(key);
  if (known) return known;
  const made = await envelopeBody(item.profile, item.envelope, signer);
  bodiesMade += 1;
  bodies.set(key, made);
  return made;
}

async function signBatch(batch: AttemptBatch): Promise<{ reply: AttemptBatchReply; transfer: ArrayBuffer[] }> {
  const signer = signerOf(batch);
  bodiesMade = 0;
  const made: (Uint8Array | null)[] = [];
  const headers: AttemptBatchReply['headers'] = [];
  const errors: (string | null)[] = [];
  let failed = false;
  for (const item of batch.items) {
    try {
      const body = await bodyOf(item, signer);
      const signed = await signWebhookAttempt({ ...item, signer, mac }, body);
      made.push(signed.body);
      headers.push(signed.headers);
      errors.push(null);
    } catch (error) {
      failed = true;
      made.push(null);
      headers.push(null);
      errors.push(error instanceof Error ? error.message : String(error));
    }
  }
  const lengths = made.map((b) => (b ? b.length : -1));
  const out = new Uint8Array(lengths.reduce((sum, n) => sum + Math.max(n, 0), 0));
  let offset = 0;
  for (const b of made) {
    if (!b) continue;
    out.set(b, offset);
    offset += b.length;
  }
  const reply: AttemptBatchReply = { id: batch.id, bodies: out.buffer, lengths, headers, bodiesMade };
  if (failed) reply.errors = errors;
  return { reply, transfer: [out.buffer] };
}

const port = parentPort;
if (!port) throw new Error('attempt-signing-worker.ts runs as a worker thread only');
port.on('message', (batch: AttemptBatch) => {
  signBatch(batch).then(
    ({ reply, transfer }) => port.postMessage(reply, transfer),
    (error: unknown) =>
      port.postMessage({ id: batch.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
