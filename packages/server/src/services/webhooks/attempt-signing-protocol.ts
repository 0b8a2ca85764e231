/**
 * The messages between the webhook worker and its attempt-signing thread (attempt-signing-thread.ts on this side,
 * attempt-signing-worker.ts on the other). Types only: both sides import them.
 */
import type { KeyObject } from 'node:crypto';
import type { WebhookProfile } from '@aar/core';
import type { UnsignedEventEnvelope } from '../events/append-event.ts';

/** One attempt to sign: what core's signWebhookDelivery takes, less the signer (named by the batch's handle). */
export interface AttemptToSign {
  profile: WebhookProfile;
  webhookId: string;
  /** unix seconds */
  timestamp: number;
  envelope: UnsignedEventEnvelope;
  /** shared_secret only: the endpoint's live secrets, current first */
  secrets?: string[];
}

/** A batch, all signed with one service key: `key` comes with the first batch of a handle only. */
export interface AttemptBatch {
  id: number;
  handle: number;
  keyId: string;
  key?: KeyObject;
  items: AttemptToSign[];
}

/**
 * The batch's answer, item by item: `bodies` holds the bodies one after another (cut by `lengths`), transferred;
 * an item that failed has length -1, no headers, and its reason in `errors` (the caller redoes it on its own thread,
 * where the same failure is thrown as core throws it). `error` alone: the whole batch failed.
 */
export interface AttemptBatchReply {
  id: number;
  bodies?: ArrayBuffer;
  lengths?: number[];
  headers?: (Record<string, string> | null)[];
  errors?: (string | null)[];
  /** how many of the batch's bodies were signed afresh, not taken from the thread's cache */
  bodiesMade?: number;
  error?: string;
}

/** What the thread is started with (workerData). */
export interface AttemptThreadOptions {
  /** bodies kept, least recently used out */
  maxBodies: number;
}
