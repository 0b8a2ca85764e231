/**
 * One round of the webhook worker made on the delivery thread (delivery-thread.ts): the main thread resolves and
 * checks the target once (the SSRF guard; the thread connects to that address only), has the bodies made (signed
 * envelopes, cached: delivery-signer.ts) and hands them over in chunks, a short one first, so the thread starts
 * sending while the rest are signed; it keeps the endpoint's lease alive while the thread works. The
 * round is cancelled (no further attempt; the one in flight finishes) when the worker stops, the lease is lost, or
 * the renewed row changed what the attempts are signed with or sent to (a rotated secret, a new URL): the attempts
 * not made stay pending and due, and the next round makes them with the new row.
 * Returns undefined when the thread cannot make the round (not started, dead, refused): the caller makes it on the
 * main thread, from its first attempt.
 */
import { parseWebhookSecret, WEBHOOK_CONTENT_TYPES } from '@aar/core';
import type { AppContext } from '../app-context.ts';
import { systemClock } from '../clock.ts';
import { renewLease } from '../services/webhooks/claim-endpoints.ts';
import { MAX_RESPONSE_BYTES } from '../services/webhooks/deliver-attempt.ts';
import type { DeliverySigner } from '../services/webhooks/delivery-signer.ts';
import {
  DeliveryThreadUnavailable,
  type DeliveryThread,
  type RoundHandle,
  type ThreadAttempt,
} from '../services/webhooks/delivery-thread.ts';
import type { DueAttempt } from '../services/webhooks/due-attempts.ts';
import { signingSecretsOf, type WebhookEndpointRow } from '../services/webhooks/endpoint-view.ts';
import type { AttemptOutcome } from '../services/webhooks/settle-attempts.ts';
import {
  isTargetRefusal,
  parseTarget,
  resolveTarget,
  type HostResolver,
  type ResolvedAddress,
} from '../services/webhooks/target-guard.ts';
import type { UnsignedEventEnvelope } from '../services/events/append-event.ts';

/** What the worker's round shares with this function: the endpoint row and lease as they evolve. */
/** attempts handed over with the round (its first attempt waits for their bodies), then per chunk */
const FIRST_CHUNK = 4;
const CHUNK = 32;

export interface RoundLease {
  endpoint: WebhookEndpointRow;
  renewAt: number;
}

export interface ThreadRoundInput {
  ctx: AppContext;
  thread: DeliveryThread;
  /** keep-alive pool name: the worker instance and the endpoint */
  pool: string;
  instanceId: string;
  leaseMs: number;
  timeoutMs: number;
  settleEveryMs: number;
  resignAfterS: number;
  resolve: HostResolver;
  due: readonly DueAttempt[];
  envelopes: ReadonlyMap<string, UnsignedEventEnvelope>;
  lease: RoundLease;
  /** the worker's rounds out on the thread, which stop() cancels */
  active: Set<RoundHandle>;
  /** decoded HMAC keys by secret (the worker's, bounded by it) */
  macKeys: Map<string, Uint8Array>;
  signer: DeliverySigner;
  onError: (error: unknown) => void;
}

/** The HMAC keys of the live secrets, decoded as core decodes them (cached: one decode per secret). */
function macKeysOf(input: ThreadRoundInput, endpoint: WebhookEndpointRow): Uint8Array[] {
  if (endpoint.profile !== 'shared_secret') return [];
  return signingSecretsOf(endpoint, input.ctx.clock.now()).map((secret) => {
    let key = input.macKeys.get(secret);
    if (!key) {
      key = parseWebhookSecret(secret);
      if (input.macKeys.size >= 1_024) input.macKeys.clear();
      input.macKeys.set(secret, key);
    }
    return key;
  });
}

/** The same row for signing and sending: URL, profile and secrets unchanged. */
function sameDelivery(a: WebhookEndpointRow, b: WebhookEndpointRow): boolean {
  return (
    a.url === b.url &&
    a.profile === b.profile &&
    a.secret === b.secret &&
    a.previous_secret === b.previous_secret &&
    a.previous_secret_until === b.previous_secret_until
  );
}

export async function roundOnThread(input: ThreadRoundInput): Promise<AttemptOutcome[] | undefined> {
  const { ctx, lease } = input;
  const endpoint = lease.endpoint;
  const allowInsecure = ctx.config.webhookAllowInsecure;
  const outcomes: AttemptOutcome[] = [];
  const sent: DueAttempt[] = [];
  const toSend: UnsignedEventEnvelope[] = [];
  for (const attempt of input.due) {
    const envelope = input.envelopes.get(attempt.event_id);
    if (!envelope) {
      // events are write-once and never deleted: only a damaged store gets here
      outcomes.push({
        attempt,
        attemptedAt: ctx.clock.now(),
        response: { status: null, retryAfter: undefined, durationMs: 0, error: 'event_missing', bytesRead: 0 },
      });
      continue;
    }
    sent.push(attempt);
    toSend.push(envelope);
  }
  if (sent.length === 0) return outcomes;
  // the SSRF guard, once per round: every address of the name checked, the first one pinned
  let target: ResolvedAddress;
  try {
    target = await resolveTarget(parseTarget(endpoint.url, allowInsecure), input.resolve, allowInsecure);
  } catch (error) {
    const reason = isTargetRefusal(error) ? String(error.extra?.reason) : 'invalid_url';
    const attemptedAt = ctx.clock.now();
    for (const attempt of sent) {
      const response = { status: null, retryAfter: undefined, durationMs: 0, error: `target_refused: ${reason}` };
      outcomes.push({ attempt, attemptedAt, response: { ...response, bytesRead: 0 } });
    }
    return outcomes;
  }
  const current = ctx.keys.current();
  const chunk = async (from: number, to: number): Promise<ThreadAttempt[]> => {
    const bodies = await Promise.all(
      toSend.slice(from, to).map((envelope) => input.signer.body(endpoint.profile, envelope, current)),
    );
    return bodies.map(({ body }, i) => ({ webhookId: toSend[from + i]!.event_id, body }));
  };
  const firstTo = Math.min(toSend.length, FIRST_CHUNK);
  const handle = input.thread.deliver({
    pool: input.pool,
    url: endpoint.url,
    address: target.address,
    family: target.family,
    profile: endpoint.profile,
    contentType: WEBHOOK_CONTENT_TYPES[endpoint.profile],
    signingKey: { keyId: current.keyId, privateKey: current.privateKey },
    macKeys: macKeysOf(input, endpoint),
    attempts: await chunk(0, firstTo),
    last: firstTo === toSend.length,
    timeoutMs: input.timeoutMs,
    maxBytes: MAX_RESPONSE_BYTES,
    settleEveryMs: input.settleEveryMs,
    resignAfterS: input.resignAfterS,
    clock: ctx.clock,
    systemClock: ctx.clock === systemClock,
  });
  input.active.add(handle);
  // the lease, renewed while the thread works (a round is bounded by settleEveryMs plus one deadline, but a slow
  // receiver and a short lease may still outlast it)
  let renewing: Promise<void> | null = null;
  const renew = async (): Promise<void> => {
    try {
      const renewed = await renewLease(ctx, endpoint.endpoint_id, input.instanceId, input.leaseMs);
      if (!renewed || renewed.state !== 'enabled' || !sameDelivery(renewed, lease.endpoint)) handle.cancel();
      if (renewed && renewed.state === 'enabled') lease.endpoint = renewed;
      lease.renewAt = ctx.clock.now().getTime() + input.leaseMs / 2;
    } catch (error) {
      handle.cancel();
      input.onError(error);
    } finally {
      renewing = null;
    }
  };
  const timer = setInterval(
    () => {
      if (!renewing && ctx.clock.now().getTime() >= lease.renewAt) renewing = renew();
    },
    Math.max(10, Math.min(1_000, input.leaseMs / 4)),
  );
  // the rest of the bodies, signed while the thread sends, in chunks (one signing-thread batch each), until the thread
  // has ended the round (a 410, its settle budget, a cancel)
  let ended = false;
  const feeding = (async () => {
    try {
      for (let from = firstTo; from < toSend.length && !ended; from += CHUNK) {
        const to = Math.min(toSend.length, from + CHUNK);
        const attempts = await chunk(from, to);
        if (!ended) handle.append(attempts, to === toSend.length);
      }
    } catch (error) {
      // a body that could not be made: the thread would wait for it, so the round ends here, with this error
      handle.cancel();
      throw error;
    }
  })();
  feeding.catch(() => undefined); // observed below
  try {
    const made = await handle.outcomes.finally(() => (ended = true));
    made.forEach(({ at, ...response }, i) => {
      outcomes.push({ attempt: sent[i]!, attemptedAt: new Date(at), response });
    });
    return outcomes;
  } catch (error) {
    if (error instanceof DeliveryThreadUnavailable) return undefined;
    throw error;
  } finally {
    clearInterval(timer);
    input.active.delete(handle);
    await renewing;
    await feeding;
  }
}
