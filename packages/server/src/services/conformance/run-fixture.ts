/**
 * Runs one fixture against a deployment, black-box over HTTP: its world's steps, then its own, each resolved
 * (templates) just before it is sent. The first step whose expectations fail ends the fixture (later steps build on
 * it); a step that must wait longer than the fixture allows skips it. Ids are made unique per execution (`{{$run}}`),
 * so the kit runs any number of times against the same deployment.
 */
import { generateKeyPairSync, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import {
  readPointer,
  resolveTemplate,
  type Fixture,
  type FixtureFailure,
  type FixtureResult,
  type FixtureStep,
  type FixtureWorld,
  type Jwks,
  type StepExpect,
  type StepRequest,
  type StepWait,
} from '@aar/core';
import { checkExpectations } from './check-expectations.ts';
import { exchange, type Exchange, type PreparedRequest } from './http-exchange.ts';
import { prepareRequest } from './prepare-request.ts';
import type { SchemaValidators } from './schema-validators.ts';
import type { WebhookGuardState } from './webhook-guard-probe.ts';
import { isLoopbackTarget, unsafeWebhookTarget, webhookTargetOf } from './webhook-target-safety.ts';

export interface RunTarget {
  /** where requests go, e.g. `http://127.0.0.1:8080` */
  baseUrl: string;
  /** the deployment's public origin (AAR_PUBLIC_URL) that agent signatures are made for; default baseUrl */
  signingOrigin?: string;
  /** an admin token */
  token: string;
}

export interface FixtureEnvironment {
  target: RunTarget;
  schemas: SchemaValidators;
  jwks: () => Promise<Jwks>;
  /** unix milliseconds */
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** whether the deployment's webhook target guard is on (probed once per run, on first use) */
  webhookGuard: () => Promise<WebhookGuardState>;
  /** headers sent on every request of the run (the run marker, run-marker.ts) */
  runHeaders?: Readonly<Record<string, string>>;
}

const NOW_OFFSET = /^\$now([+-]\d+)$/;
const MAX_VAR_DEPTH = 32;

class Skip extends Error {}

export async function runFixture(
  fixture: Fixture,
  world: FixtureWorld | undefined,
  env: FixtureEnvironment,
): Promise<FixtureResult> {
  const started = performance.now();
  const result = (status: FixtureResult['status'], failures: FixtureFailure[], skip?: string): FixtureResult => ({
    fixture_id: fixture.fixture_id,
    profile: fixture.profile,
    title: fixture.title,
    status,
    duration_ms: Math.round(performance.now() - started),
    failures,
    ...(skip === undefined ? {} : { skip_reason: skip }),
  });
  // a fixture whose expectations hold only on a deployment of some kind is skipped before anything is created
  if (fixture.requires?.includes('webhook_target_guard')) {
    const guard = await env.webhookGuard();
    if (!guard.on) return result('skipped', [], guard.reason);
  }
  const steps: FixtureStep[] = [...(world?.steps ?? []), ...fixture.steps];
  const state = new FixtureState(fixture, world, env);
  let outcome: FixtureResult | undefined;
  for (const [index, step] of steps.entries()) {
    const failures = await runStep(step, index, state, env);
    if (failures instanceof Skip) outcome = result('skipped', [], failures.message);
    else if (failures.length > 0) outcome = result('failed', failures);
    if (outcome) break;
  }
  // cleanup runs whatever happened; a cleanup step that cannot run (its captures are missing) is passed over
  for (const step of [...(fixture.cleanup ?? []), ...(world?.cleanup ?? [])]) {
    await runStep(step, -1, state, env);
  }
  return outcome ?? result('passed', []);
}

/** Runs one step; returns its failures (empty: it passed), or a Skip when it would wait too long. */
async function runStep(
  step: FixtureStep,
  index: number,
  state: FixtureState,
  env: FixtureEnvironment,
): Promise<FixtureFailure[] | Skip> {
  const at = { step: index, ...(step.id === undefined ? {} : { step_id: step.id }) };
  try {
    if (step.wait) await state.wait(resolveTemplate(step.wait, state.lookup) as StepWait);
    const prepared = step.request.repeat
      ? state.sent(step.request.repeat)
      : await prepareRequest(resolveTemplate(step.request, state.lookup) as StepRequest, state.prepareContext());
    if (step.id !== undefined) state.remember(step.id, prepared);
    const webhookTarget = webhookTargetOf(prepared, env.target.baseUrl);
    if (webhookTarget !== undefined) {
      const expected = step.expect?.status;
      const statuses = expected === undefined ? undefined : Array.isArray(expected) ? expected : [expected];
      const unsafe = unsafeWebhookTarget(prepared, env.target.baseUrl, await env.webhookGuard(), statuses);
      if (unsafe !== undefined) return new Skip(unsafe);
    }
    const res = await exchange(prepared);
    if (webhookTarget !== undefined && !isLoopbackTarget(webhookTarget))
      await deleteAcceptedEndpoint(res, prepared, env);
    if (step.expect) {
      const expect = resolveTemplate(step.expect, state.lookup) as StepExpect;
      const failures = await checkExpectations(res, expect, env.schemas, env.jwks);
      if (failures.length > 0) return failures.map((f) => ({ ...at, ...f }));
    }
    for (const [name, pointer] of Object.entries(step.capture ?? {})) {
      const read = readPointer(res.json, pointer);
      if (!read.found) return [{ ...at, pointer, message: `capture \`${name}\`: nothing here` }];
      state.capture(name, read.value);
    }
    return [];
  } catch (error) {
    if (error instanceof Skip) return error;
    return [{ ...at, message: (error as Error).message }];
  }
}

/**
 * A registration at a non-loopback target, sent because a refusal was expected, was accepted (a deployment whose
 * guard misses a range): the endpoint is deleted at once, so the worker never delivers to it.
 */
async function deleteAcceptedEndpoint(res: Exchange, sent: PreparedRequest, env: FixtureEnvironment): Promise<void> {
  if (res.status < 200 || res.status >= 300 || sent.method !== 'POST') return;
  const id = (res.json as { endpoint_id?: unknown } | undefined)?.endpoint_id;
  if (typeof id !== 'string') return;
  const step = sent.url.slice(env.target.baseUrl.length);
  if (step !== '/v1/webhook-endpoints') return;
  await exchange({
    method: 'DELETE',
    url: `${env.target.baseUrl}/v1/webhook-endpoints/${encodeURIComponent(id)}`,
    headers: { ...env.runHeaders, authorization: `Bearer ${env.target.token}` },
  }).catch(() => undefined);
}

/** Captures, variables, keys and the requests sent, for one execution of one fixture. */
class FixtureState {
  readonly #run = randomBytes(5).toString('hex');
  readonly #captures = new Map<string, unknown>();
  readonly #vars: Record<string, unknown>;
  readonly #keys = new Map<string, { privateKey: KeyObject; public_jwk: { kty: string; crv: string; x: string } }>();
  readonly #sent = new Map<string, PreparedRequest>();
  #depth = 0;

  constructor(
    fixture: Fixture,
    world: FixtureWorld | undefined,
    private readonly env: FixtureEnvironment,
  ) {
    this.#vars = { ...world?.vars, ...fixture.vars };
    for (const name of new Set([...(world?.keys ?? []), ...(fixture.keys ?? [])])) {
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      const { kty, crv, x } = publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string };
      this.#keys.set(name, { privateKey, public_jwk: { kty, crv, x } });
    }
  }

  readonly lookup = (head: string): unknown => {
    if (head.startsWith('$')) return this.#builtin(head);
    if (head === 'keys') {
      return Object.fromEntries([...this.#keys].map(([name, k]) => [name, { public_jwk: k.public_jwk }]));
    }
    if (this.#captures.has(head)) return this.#captures.get(head);
    if (!Object.hasOwn(this.#vars, head)) return undefined;
    // variables are templates themselves, resolved where they are used (so they see the latest captures)
    if (++this.#depth > MAX_VAR_DEPTH) throw new Error(`variable \`${head}\` refers to itself`);
    try {
      return resolveTemplate(this.#vars[head], this.lookup);
    } finally {
      this.#depth--;
    }
  };

  #builtin(head: string): unknown {
    const now = this.env.now();
    switch (head) {
      case '$run':
        return this.#run;
      case '$token':
        return this.env.target.token;
      case '$uuid':
        return randomUUID();
      case '$now':
        return new Date(now).toISOString();
      case '$today':
        return new Date(now).toISOString().slice(0, 10);
      case '$base_url':
        return this.env.target.baseUrl;
      case '$signing_origin':
        return this.env.target.signingOrigin ?? this.env.target.baseUrl;
    }
    const offset = NOW_OFFSET.exec(head);
    if (offset) return new Date(now + Number(offset[1]) * 1000).toISOString();
    return undefined;
  }

  capture(name: string, value: unknown): void {
    this.#captures.set(name, value);
  }

  remember(id: string, request: PreparedRequest): void {
    this.#sent.set(id, request);
  }

  sent(id: string): PreparedRequest {
    const request = this.#sent.get(id);
    if (!request) throw new Error(`step \`${id}\` sent nothing to repeat`);
    return request;
  }

  prepareContext() {
    return {
      baseUrl: this.env.target.baseUrl,
      signingOrigin: this.env.target.signingOrigin ?? this.env.target.baseUrl,
      token: this.env.target.token,
      runHeaders: this.env.runHeaders ?? {},
      keys: { get: (name: string) => this.#keys.get(name)?.privateKey },
      now: this.env.now,
    };
  }

  async wait(wait: StepWait): Promise<void> {
    const until = Date.parse(wait.until);
    if (!Number.isFinite(until)) throw new Error(`wait.until \`${wait.until}\` is not an instant`);
    const ms = until + (wait.pad_ms ?? 1000) - this.env.now();
    if (ms > wait.max_seconds * 1000) {
      throw new Skip(`would wait ${Math.ceil(ms / 1000)} s (until ${wait.until}), more than ${wait.max_seconds} s`);
    }
    if (ms > 0) await this.env.sleep(ms);
  }
}
