/**
 * Issue 8, points 1 and 2, over a real socket: the signed `@target-uri` is rebuilt from AAR_PUBLIC_URL and the
 * request-target as received, never from Host or X-Forwarded-*; freshness is inclusive in whole seconds.
 * Requests go out on node:http (signed-authorize.ts) so the Host header is the test's to choose, as an attacker's is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestSigner } from '@aar/sdk';
import { fixedClock } from '../support/fixed-clock.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { AUTHORIZE_PATH, deliverAuthorize, signAuthorize, type SignedAuthorize } from '../support/signed-authorize.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

type World = Awaited<ReturnType<typeof buildPurchaseWorld>>;

const PUBLIC = 'https://pay.example.com';

async function recordedPayloadCheck(world: World, policyDecisionId: string) {
  const recorded = (await world.call('GET', `/v1/decisions/${policyDecisionId}`)).body;
  return {
    check: recorded.diagnostics.checks[0],
    payload: recorded.snapshot.payload,
  };
}

describe('the signature @target-uri comes from AAR_PUBLIC_URL', () => {
  let rt: TestRuntime;
  let base: string;
  let world: World;
  const send = (
    signed: SignedAuthorize,
    extra: { host?: string; headers?: Record<string, string>; path?: string } = {},
  ) => deliverAuthorize(signed, { to: base, runtimeToken: world.runtimeToken, ...extra });

  beforeAll(async () => {
    rt = await startTestRuntime({ config: { publicUrls: [PUBLIC] } });
    base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN);
  });
  afterAll(async () => rt?.close());

  it('allows a request signed for the https public URL and received over plain http (TLS ended at a proxy)', async () => {
    const res = await send(await signAuthorize(world.signer, PUBLIC, world.purchase(10)));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ decision: 'allow_with_constraints' });
    const { payload } = await recordedPayloadCheck(world, res.body.policy_decision_id);
    expect(payload).toMatchObject({ signature_valid: true, target_uris: [`${PUBLIC}${AUTHORIZE_PATH}`] });
  });

  it('ignores Host and X-Forwarded-* entirely, whatever they claim', async () => {
    const res = await send(await signAuthorize(world.signer, PUBLIC, world.purchase(10)), {
      host: 'other.example',
      headers: { 'x-forwarded-host': 'other.example', 'x-forwarded-proto': 'http', forwarded: 'host=other.example' },
    });
    expect(res.body).toMatchObject({ decision: 'allow_with_constraints' });
  });

  it('denies a signature made for another deployment, even with the Host that deployment has', async () => {
    // a request captured at other.example, whose runtime trusts the same agent key, replayed here
    const captured = await signAuthorize(world.signer, 'http://other.example', world.purchase(10));
    for (const attempt of [
      { host: 'other.example' },
      { host: 'other.example', headers: { 'x-forwarded-proto': 'http', 'x-forwarded-host': 'other.example' } },
    ]) {
      const res = await send(await signAuthorize(world.signer, 'http://other.example', world.purchase(10)), attempt);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ decision: 'deny', reason: 'payload_signature_invalid' });
      const { check, payload } = await recordedPayloadCheck(world, res.body.policy_decision_id);
      expect(check).toEqual({
        check: 'payload',
        outcome: 'fail',
        reason: 'payload_signature_invalid',
        detail: `signature does not verify (signature_mismatch) for @target-uri \`${PUBLIC}${AUTHORIZE_PATH}\``,
      });
      expect(payload).toMatchObject({
        signature_valid: false,
        signature_failure: 'signature_mismatch',
        target_uris: [`${PUBLIC}${AUTHORIZE_PATH}`],
      });
    }
    expect((await send(captured, { host: 'other.example' })).body.reason).toBe('payload_signature_invalid');
  });

  it('denies a request signed for the address it was actually reached at (not the public URL)', async () => {
    const res = await send(await signAuthorize(world.signer, base, world.purchase(10)));
    expect(res.body).toMatchObject({ decision: 'deny', reason: 'payload_signature_invalid' });
  });

  it('takes the path and query exactly as received', async () => {
    const withQuery = `${AUTHORIZE_PATH}?trace=a%20b`;
    const body = world.purchase(10);
    const text = JSON.stringify(body);
    const sign = async () => ({
      text,
      headers: { ...(await world.signer.sign({ method: 'POST', url: `${PUBLIC}${withQuery}`, body: text })) },
    });
    expect((await send(await sign(), { path: withQuery })).body.decision).toBe('allow_with_constraints');
    const dropped = await send(await sign(), { path: AUTHORIZE_PATH });
    expect(dropped.body).toMatchObject({ decision: 'deny', reason: 'payload_signature_invalid' });
    const { payload } = await recordedPayloadCheck(world, dropped.body.policy_decision_id);
    expect(payload.target_uris).toEqual([`${PUBLIC}${AUTHORIZE_PATH}`]);
  });
});

describe('several public URLs', () => {
  let rt: TestRuntime;
  let base: string;
  let world: World;
  const URLS = ['https://a.example', 'https://pay.example.com/aar'];

  beforeAll(async () => {
    rt = await startTestRuntime({ config: { publicUrls: URLS } });
    base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN);
  });
  afterAll(async () => rt?.close());

  it('verifies a signature made for any one of them (a path prefix included)', async () => {
    for (const origin of URLS) {
      const signed = await signAuthorize(world.signer, origin, world.purchase(5));
      const res = await deliverAuthorize(signed, { to: base, runtimeToken: world.runtimeToken });
      expect(res.body).toMatchObject({ decision: 'allow_with_constraints' });
      const { payload } = await recordedPayloadCheck(world, res.body.policy_decision_id);
      expect(payload.target_uris).toEqual([`${origin}${AUTHORIZE_PATH}`]);
    }
  });

  it('names every target URI it tried when none verifies', async () => {
    const signed = await signAuthorize(world.signer, 'https://c.example', world.purchase(5));
    const res = await deliverAuthorize(signed, { to: base, runtimeToken: world.runtimeToken, host: 'c.example' });
    expect(res.body).toMatchObject({ decision: 'deny', reason: 'payload_signature_invalid' });
    const { check } = await recordedPayloadCheck(world, res.body.policy_decision_id);
    expect(check.detail).toBe(
      'signature does not verify (signature_mismatch) for @target-uri ' +
        URLS.map((u) => `\`${u}${AUTHORIZE_PATH}\``).join(' or '),
    );
  });
});

describe('freshness: inclusive, whole seconds', () => {
  // the server's clock sits 750 ms into a second: whole seconds must ignore the fraction
  const nowSeconds = Math.floor(Date.now() / 1000);
  let rt: TestRuntime;
  let base: string;
  let world: World;

  beforeAll(async () => {
    rt = await startTestRuntime({
      clock: fixedClock(new Date(nowSeconds * 1000 + 750).toISOString()),
      config: { publicUrls: [PUBLIC] },
    });
    base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN);
  });
  afterAll(async () => rt?.close());

  it.each([
    [-300, 'allow_with_constraints', 'scope_within_attenuated_authority'],
    [300, 'allow_with_constraints', 'scope_within_attenuated_authority'],
    [-301, 'deny', 'payload_stale'],
    [301, 'deny', 'payload_stale'],
  ])('created = now %+d s is %s', async (offset, decision, reason) => {
    const signer = createRequestSigner({
      keyId: 'ns:entity:agent:shopper-1',
      privateJwk: world.privateJwk,
      now: () => nowSeconds + offset,
    });
    const res = await deliverAuthorize(await signAuthorize(signer, PUBLIC, world.purchase(1)), {
      to: base,
      runtimeToken: world.runtimeToken,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ decision, reason });
  });
});
