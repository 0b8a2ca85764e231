/**
 * The webhook delivery worker of `aar serve` (CONTRACT section 9, docs/webhooks.md). It reads the outbox (the
 * `events` table, never written here) and delivers at least once:
 * - WAKE: right after a local commit that wrote anything (write queue), on PostgreSQL at every other instance's
 *   commit of events (LISTEN/NOTIFY), and every `pollMs` anyway (retries falling due, a lost notification).
 * - ONE INSTANCE PER ENDPOINT: an endpoint is leased (claim-endpoints.ts); the holder queues its new events as first
 *   attempts in commit order (fan-out-events.ts), then makes the due attempts one after another in commit order,
 *   so a receiver sees first attempts in commit order. A failed event does not hold back the events after it: its
 *   retry is queued for later (retry-schedule.ts) and is made when due, so retries arrive out of order; receivers
 *   de-duplicate by `webhook-id` (= event_id) and must not rely on order.
 * - AT LEAST ONCE: an attempt is settled after it was made; a crash between the two (or a lost lease) means it is
 *   made again, with the same `webhook-id`, after the lease expires. Every endpoint is worked concurrently with
 *   the others (up to `concurrency`), so a slow receiver delays only itself.
 * Every input is an argument: the clock is the context's, DNS is `resolveHost`, and tests drive it with drain().
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Agent } from 'undici';
import type { AppContext } from '../app-context.ts';
import { claimEndpoints, releaseLease, renewLease } from '../services/webhooks/claim-endpoints.ts';
import { deliverAttempt, DELIVERY_TIMEOUT_MS } from '../services/webhooks/deliver-attempt.ts';
import { anyEnabledEndpoint, onEndpointsChanged } from '../services/webhooks/endpoint-presence.ts';
import { DeliverySigner, type SignedAttempt } from '../services/webhooks/delivery-signer.ts';
import type { DeliveryThread, RoundHandle } from '../services/webhooks/delivery-thread.ts';
import { dueRound, type DueAttempt } from '../services/webhooks/due-attempts.ts';
import type { WebhookEndpointRow } from '../services/webhooks/endpoint-view.ts';
import { FAN_OUT_PAGE, fanOutEvents, LeaseLostError } from '../services/webhooks/fan-out-events.ts';
import { settleAttempts, succeeded, type AttemptOutcome } from '../services/webhooks/settle-attempts.ts';
import { pinnedLookup, systemResolver, type HostResolver } from '../services/webhooks/target-guard.ts';
import type { UnsignedEventEnvelope } from '../services/events/append-event.ts';
import { listenForEvents } from './listen-events.ts';
import { roundOnThread, type RoundLease } from './webhook-thread-round.ts';

export interface WebhookWorkerOptions {
  /** DNS for delivery targets (the SSRF guard checks every address it returns); the system resolver by default */
  resolveHost?: HostResolver;
  /** deadline of one attempt, ms (CONTRACT: 15 s) */
  timeoutMs?: number;
  /** how long a lease on an endpoint lasts without renewal, ms; an instance that dies is taken over after it */
  leaseMs?: number;
  /** the longest sleep between passes, ms */
  pollMs?: number;
  /** attempts made per round before their results are written (one commit per round) */
  batchSize?: number;
  /** a round is settled once it has run this long, ms, however few attempts it made (a slow receiver) */
  settleEveryMs?: number;
  /** endpoints worked at once by this instance */
  concurrency?: number;
  /**
   * a delivery thread to sign and POST the rounds on (delivery-thread.ts; e.g. `sharedDeliveryThread()`), the main
   * thread falling back when it cannot start or dies. Off by default: measured with the receiver in this process
   * (bench/webhook-delivery.ts), every request and answer then crosses threads and wakes a sleeping one, which cost
   * more than the event-loop time it saves (bench/RESULTS.md, issue 9).
   */
  deliveryThread?: DeliveryThread | null;
  /** failures of the worker itself (a database error); never carries a secret */
  onError?: (error: unknown, endpointId?: string) => void;
}

export interface WebhookWorkerStats {
  attempts: number;
  succeeded: number;
  failed: number;
}

export const DEFAULT_LEASE_MS = 30_000;
/**
 * Attempts signed ahead of the one in flight (made on the attempt-signing thread meanwhile). Deep enough that this
 * thread does not wait for signatures in a steady stream: the thread answers a batch at once, and a thread woken
 * from idle on this VM-class machine takes tens of microseconds to start; measured with 32, this thread waited
 * 30-50 µs per event for its signatures (bench/RESULTS.md, issue 9).
 */
export const SIGN_AHEAD = 128;
/** the window is refilled once this many of it were used, so the thread gets batches of this size */
const SIGN_REFILL = 32;
const SIGN_FIRST = 8;
export const DEFAULT_BATCH_SIZE = 1_024;
export const DEFAULT_SETTLE_EVERY_MS = 1_000;
/** an attempt signed ahead longer ago than this (a slow receiver before it) is signed again when it is made */
export const RESIGN_AFTER_S = 30;

export class WebhookWorker {
  readonly instanceId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  readonly stats: WebhookWorkerStats = { attempts: 0, succeeded: 0, failed: 0 };
  readonly #ctx: AppContext;
  readonly #resolve: HostResolver;
  readonly #timeoutMs: number;
  readonly #leaseMs: number;
  readonly #pollMs: number;
  readonly #batchSize: number;
  readonly #settleEveryMs: number;
  readonly #concurrency: number;
  readonly #onError: (error: unknown, endpointId?: string) => void;
  readonly #active = new Map<string, Promise<void>>();
  readonly #agents = new Map<string, { url: string; agent: Agent }>();
  readonly #signer: DeliverySigner;
  readonly #thread: DeliveryThread | null;
  readonly #threadRounds = new Set<RoundHandle>();
  readonly #macKeys = new Map<string, Uint8Array>();
  #workErrors: unknown[] = [];
  #stopped = true;
  #woken = false;
  #wakeResolve: (() => void) | null = null;
  #loop: Promise<void> | null = null;
  #offCommit: (() => void) | null = null;
  #unlisten: (() => Promise<void>) | null = null;
  #offEndpoints: (() => void) | null = null;
  /** no endpoint was enabled when last read (at #checkedAt, performance.now()); bumped epochs void a read in flight */
  #noEndpoints = false;
  #checkedAt = -Infinity;
  #endpointsEpoch = 0;

  constructor(ctx: AppContext, options: WebhookWorkerOptions = {}) {
    this.#ctx = ctx;
    this.#resolve = options.resolveHost ?? ctx.resolveHost ?? systemResolver;
    this.#timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#pollMs = options.pollMs ?? 1_000;
    this.#batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.#settleEveryMs = options.settleEveryMs ?? DEFAULT_SETTLE_EVERY_MS;
    this.#concurrency = options.concurrency ?? 16;
    this.#onError = options.onError ?? (() => undefined);
    this.#signer = new DeliverySigner(ctx.keys);
    this.#thread = options.deliveryThread ?? null;
  }

  /** Starts the background loop (aar serve). */
  async start(): Promise<void> {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#offCommit = this.#ctx.writer.onCommit(() => this.wake());
    this.#offEndpoints = onEndpointsChanged(this.#ctx, () => {
      this.#endpointsEpoch += 1;
      this.#noEndpoints = false;
      this.wake();
    });
    this.#unlisten = await listenForEvents(this.#ctx, () => this.wake());
    this.#loop = this.#run();
  }

  /** Stops taking work, lets the attempts in flight finish and settle, and closes connections. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.wake();
    for (const round of this.#threadRounds) round.cancel();
    await this.#loop;
    await Promise.allSettled([...this.#active.values()]);
    this.#offCommit?.();
    this.#offEndpoints?.();
    await this.#unlisten?.();
    await Promise.allSettled([...this.#agents.values()].map(({ agent }) => agent.close()));
    this.#agents.clear();
    this.#thread?.closePools(`${this.instanceId} `);
  }

  /** Look for work now instead of at the next poll. */
  wake(): void {
    this.#woken = true;
    const resolve = this.#wakeResolve;
    this.#wakeResolve = null;
    resolve?.();
  }

  /** Works until nothing is due now (tests, with a clock they move); rethrows the first failure of a round. */
  async drain(): Promise<void> {
    const wasStopped = this.#stopped;
    this.#stopped = false;
    try {
      for (;;) {
        this.#workErrors = [];
        const claimed = await this.#pass(true);
        if (claimed === 0 && this.#active.size === 0) return;
        await Promise.allSettled([...this.#active.values()]);
        if (this.#workErrors.length > 0) throw this.#workErrors[0];
      }
    } finally {
      this.#stopped = wasStopped;
    }
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      this.#woken = false;
      try {
        await this.#pass(false);
      } catch (error) {
        this.#onError(error);
      }
      if (this.#woken || this.#stopped) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.#wakeResolve = null;
          resolve();
        }, this.#pollMs);
        this.#wakeResolve = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /**
   * Claims the endpoints that have work and starts working each; returns how many it claimed. Unless `always`
   * (drain), a pass with nothing in hand first asks whether any endpoint is enabled (#mayHaveWork).
   */
  async #pass(always: boolean): Promise<number> {
    if (!always && this.#active.size === 0 && !(await this.#mayHaveWork())) return 0;
    const free = this.#concurrency - this.#active.size;
    const claimed = await claimEndpoints(this.#ctx, this.instanceId, this.#leaseMs, free, [...this.#active.keys()]);
    for (const endpoint of claimed) {
      const id = endpoint.endpoint_id;
      let failed = false;
      const work = this.#work(endpoint)
        .catch((error: unknown) => {
          if (error instanceof LeaseLostError) return;
          failed = true;
          this.#workErrors.push(error);
          this.#onError(error, id);
        })
        .finally(() => {
          this.#active.delete(id);
          // after a failure (the database, most likely) wait for the next poll instead of hammering the receiver
          if (!failed) this.wake();
        });
      this.#active.set(id, work);
    }
    return claimed.length;
  }

  /**
   * False when no endpoint is enabled, so there is nothing to claim: read at most once per `pollMs` (another
   * process may create or enable one: found within a poll), trusted in between unless this process created or
   * enabled one since (onEndpointsChanged drops it and wakes us). Wakes come after every commit and every NOTIFY;
   * with no endpoint they cost no round trip.
   */
  async #mayHaveWork(): Promise<boolean> {
    const now = performance.now();
    if (now - this.#checkedAt < this.#pollMs) return !this.#noEndpoints;
    const epoch = this.#endpointsEpoch;
    const any = await anyEnabledEndpoint(this.#ctx);
    if (epoch !== this.#endpointsEpoch) return true;
    this.#noEndpoints = !any;
    this.#checkedAt = now;
    return any;
  }

  async #work(claimed: WebhookEndpointRow): Promise<void> {
    const ctx = this.#ctx;
    const lease: RoundLease = { endpoint: claimed, renewAt: ctx.clock.now().getTime() + this.#leaseMs / 2 };
    try {
      while (lease.endpoint.state === 'enabled' && !this.#stopped) {
        const passed = await fanOutEvents(ctx, lease.endpoint, this.instanceId);
        const { attempts: due, envelopes } = await dueRound(ctx, lease.endpoint.endpoint_id, this.#batchSize);
        if (due.length === 0) {
          if (passed < FAN_OUT_PAGE) return;
          continue;
        }
        await this.#durable();
        if (this.#stopped) return;
        const outcomes =
          (this.#thread?.available ? await this.#roundOnThread(lease, due, envelopes) : undefined) ??
          (await this.#roundOnMainThread(lease, due, envelopes));
        for (const { response } of outcomes) {
          if (response.error === 'event_missing') continue;
          this.stats.attempts += 1;
          if (succeeded(response)) this.stats.succeeded += 1;
          else this.stats.failed += 1;
        }
        const until = new Date(ctx.clock.now().getTime() + this.#leaseMs).toISOString();
        const settled = await settleAttempts(ctx, lease.endpoint, outcomes, { owner: this.instanceId, until });
        if (settled.disabled || !settled.endpoint) return;
        lease.endpoint = settled.endpoint;
        lease.renewAt = ctx.clock.now().getTime() + this.#leaseMs / 2;
      }
    } finally {
      await releaseLease(ctx, claimed.endpoint_id, this.instanceId).catch((error: unknown) =>
        this.#onError(error, claimed.endpoint_id),
      );
    }
  }

  /**
   * INVARIANT: nothing is delivered before it is durable. The write queue answers and wakes us only after a commit;
   * when the store makes commits durable later than that (an fdatasync off the event loop), it offers a barrier.
   */
  async #durable(): Promise<void> {
    const store = this.#ctx.store as unknown as { durable?: () => Promise<void> };
    if (typeof store.durable === 'function') await store.durable();
  }

  /** The round on the delivery thread; undefined when the thread cannot make it (then the main thread does). */
  #roundOnThread(
    lease: RoundLease,
    due: readonly DueAttempt[],
    envelopes: ReadonlyMap<string, UnsignedEventEnvelope>,
  ): Promise<AttemptOutcome[] | undefined> {
    return roundOnThread({
      ctx: this.#ctx,
      thread: this.#thread!,
      pool: `${this.instanceId} ${lease.endpoint.endpoint_id}`,
      instanceId: this.instanceId,
      leaseMs: this.#leaseMs,
      timeoutMs: this.#timeoutMs,
      settleEveryMs: this.#settleEveryMs,
      resignAfterS: RESIGN_AFTER_S,
      resolve: this.#resolve,
      due,
      envelopes,
      lease,
      active: this.#threadRounds,
      macKeys: this.#macKeys,
      signer: this.#signer,
      onError: (error) => this.#onError(error, lease.endpoint.endpoint_id),
    });
  }

  /**
   * The round on the main thread (no delivery thread, or it failed): signing runs ahead of sending, up to
   * SIGN_AHEAD attempts after the one in flight are being signed on the attempt-signing thread. Attempts are still
   * made one after another in this order; only the signatures are made early. The window is refilled in bursts (once
   * SIGN_REFILL of it were used), so the thread gets batches, not one message per signature.
   */
  async #roundOnMainThread(
    lease: RoundLease,
    due: readonly DueAttempt[],
    envelopes: ReadonlyMap<string, UnsignedEventEnvelope>,
  ): Promise<AttemptOutcome[]> {
    const ctx = this.#ctx;
    let ahead: (Promise<SignedAttempt> | undefined)[] = [];
    let signedUpTo = 0;
    const signAhead = (from: number, signedFor: WebhookEndpointRow): void => {
      if (signedUpTo - from > SIGN_AHEAD - SIGN_REFILL) return;
      // a round starts with a short burst, so its first attempt waits for a few signatures, then the window fills
      // in batches of SIGN_REFILL
      const until = Math.min(
        due.length,
        from + SIGN_AHEAD,
        Math.max(from, signedUpTo) + (signedUpTo === 0 ? SIGN_FIRST : SIGN_REFILL),
      );
      for (let j = Math.max(from, signedUpTo); j < until; j++) {
        const envelope = envelopes.get(due[j]!.event_id);
        if (!envelope) continue;
        const signing = this.#signer.sign(signedFor, envelope, ctx.clock.now());
        signing.catch(() => undefined); // observed when its turn comes
        ahead[j] = signing;
      }
      signedUpTo = Math.max(signedUpTo, until);
    };
    const outcomes: AttemptOutcome[] = [];
    const roundStarted = ctx.clock.now().getTime();
    for (let i = 0; i < due.length; i++) {
      const attempt = due[i]!;
      if (this.#stopped) break;
      // the attempts not made stay pending and due: the next round takes them first
      if (i > 0 && ctx.clock.now().getTime() - roundStarted >= this.#settleEveryMs) break;
      if (ctx.clock.now().getTime() >= lease.renewAt) {
        const renewed = await renewLease(ctx, lease.endpoint.endpoint_id, this.instanceId, this.#leaseMs);
        if (!renewed || renewed.state !== 'enabled') break;
        lease.endpoint = renewed;
        lease.renewAt = ctx.clock.now().getTime() + this.#leaseMs / 2;
        // the row may carry a rotated secret: sign the rest with it
        ahead = [];
        signedUpTo = i;
      }
      const endpoint = lease.endpoint;
      const envelope = envelopes.get(attempt.event_id);
      if (!envelope) {
        // events are write-once and never deleted: only a damaged store gets here
        outcomes.push({
          attempt,
          attemptedAt: ctx.clock.now(),
          response: { status: null, retryAfter: undefined, durationMs: 0, error: 'event_missing', bytesRead: 0 },
        });
        continue;
      }
      signAhead(i, endpoint);
      let signed = await (ahead[i] ?? this.#signer.sign(endpoint, envelope, ctx.clock.now()));
      ahead[i] = undefined;
      const attemptedAt = ctx.clock.now();
      if (Math.floor(attemptedAt.getTime() / 1000) - signed.timestamp > RESIGN_AFTER_S) {
        signed = await this.#signer.sign(endpoint, envelope, attemptedAt);
      }
      const response = await deliverAttempt(
        {
          url: endpoint.url,
          body: signed.body,
          headers: { ...signed.headers, 'content-type': signed.contentType, 'user-agent': 'aar-webhooks/1' },
        },
        {
          dispatcher: this.#agentFor(endpoint),
          allowInsecure: ctx.config.webhookAllowInsecure,
          timeoutMs: this.#timeoutMs,
        },
      );
      outcomes.push({ attempt, attemptedAt, response });
      if (response.status === 410) break;
    }
    return outcomes;
  }

  /** One connection pool per endpoint, connecting only through the SSRF guard's pinned lookup. */
  #agentFor(endpoint: WebhookEndpointRow): Agent {
    const known = this.#agents.get(endpoint.endpoint_id);
    // a pool destroyed by an attempt's deadline (deliver-attempt.ts) is replaced
    if (known && known.url === endpoint.url && !known.agent.destroyed) return known.agent;
    if (known) void known.agent.close().catch(() => undefined);
    const agent = new Agent({
      connect: { lookup: pinnedLookup(this.#resolve, this.#ctx.config.webhookAllowInsecure), timeout: this.#timeoutMs },
      connections: 4,
      keepAliveTimeout: 4_000,
    });
    this.#agents.set(endpoint.endpoint_id, { url: endpoint.url, agent });
    return agent;
  }
}
