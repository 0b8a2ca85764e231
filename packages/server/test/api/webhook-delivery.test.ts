/**
 * Webhook delivery end to end over real sockets: `aar`'s app on 127.0.0.1, a node:http receiver on 127.0.0.1
 * (AAR_WEBHOOK_ALLOW_INSECURE, as loopback is refused otherwise), the worker running. A revocation cascade's
 * `ns.authority.revoked` events arrive in all three profiles and verify with what a receiver would use: the
 * `standardwebhooks` library (HMAC), cbor2 + node:crypto (COSE_Sign1), node:crypto against the JWKS (`v1a`).
 */
import { createPublicKey, verify as edVerify, type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';
import { decode, encode, Tag } from 'cbor2';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookWorker } from '../../src/workers/webhook-worker.ts';
import { buildDelegationWorld, type DelegationWorld } from '../support/delegation-world.ts';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

let rt: TestRuntime;
let base: string;
let worker: WebhookWorker;
let w: DelegationWorld;
const receivers: WebhookReceiver[] = [];

const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
};

async function jwksKey(kid: string): Promise<KeyObject> {
  const jwks = (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> };
  const jwk = jwks.keys.find((k) => k.kid === kid);
  if (!jwk) throw new Error(`kid ${kid} is not in the JWKS`);
  return createPublicKey({ key: jwk as never, format: 'jwk' });
}

function signedContent(headers: Record<string, unknown>, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${headers['webhook-id']}.${headers['webhook-timestamp']}.`), body]);
}

function v1aSignature(header: string): Buffer {
  const entry = header.split(' ').find((e) => e.startsWith('v1a,'));
  if (!entry) throw new Error(`no v1a signature in ${header}`);
  return Buffer.from(entry.slice(4), 'base64');
}

/** Verifies a CONTRACT section 4 signed document with node:crypto and the JWKS. */
async function verifyDocument(doc: Record<string, unknown>): Promise<boolean> {
  const { signature, ...rest } = doc as { signature: { key_id: string; signature: string } };
  const key = await jwksKey(signature.key_id);
  return edVerify(null, Buffer.from(canonicalize(rest)!), key, Buffer.from(signature.signature, 'base64url'));
}

beforeAll(async () => {
  rt = await startTestRuntime({ config: { webhookAllowInsecure: true } });
  await rt.app.listen({ host: '127.0.0.1', port: 0 });
  const address = rt.app.server.address() as { port: number };
  base = `http://127.0.0.1:${address.port}`;
  worker = new WebhookWorker(rt.ctx, { pollMs: 100 });
  await worker.start();
  w = await buildDelegationWorld(base, ADMIN_TOKEN);
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  for (const r of receivers) await r.close();
  await rt?.close();
});

describe('a revocation cascade delivered in every profile', () => {
  it('arrives once per grant at three endpoints, each verifying as its profile says', async () => {
    const endpoints: Record<string, { id: string; secret?: string; receiver: WebhookReceiver }> = {};
    for (const profile of ['shared_secret', 'asymmetric', 'cose'] as const) {
      const receiver = await startReceiver();
      receivers.push(receiver);
      const created = await api('POST', '/v1/webhook-endpoints', {
        url: receiver.url,
        profile,
        event_types: ['ns.authority.*'],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.endpoint_id).toMatch(/^ns:webhook_endpoint:[0-9a-f-]{36}$/);
      expect(created.body.state).toBe('enabled');
      if (profile === 'shared_secret') expect(created.body.secret).toMatch(/^whsec_/);
      else expect(created.body.secret).toBeUndefined();
      endpoints[profile] = { id: created.body.endpoint_id, secret: created.body.secret, receiver };
    }
    // a chain of three grants: revoking the root revokes all three, one event each
    const middle = await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:planner', {});
    expect(middle.status, JSON.stringify(middle.body)).toBe(201);
    const leaf = await w.delegate(middle.body.grant_id, 'planner', 'ns:entity:agent:shopper-1', {});
    expect(leaf.status, JSON.stringify(leaf.body)).toBe(201);
    const revoked = await api('POST', `/v1/grants/${w.root.grant_id}/revoke`);
    expect(revoked.body.revoked_count).toBe(3);
    const grants = [w.root.grant_id, middle.body.grant_id, leaf.body.grant_id].sort();

    // shared_secret: the standardwebhooks library verifies each delivery
    const hmac = endpoints.shared_secret!;
    const hmacDeliveries = await hmac.receiver.waitFor(5);
    await new Promise((r) => setTimeout(r, 200));
    const revokedHmac = hmac.receiver.received.filter((d) => d.body.includes('ns.authority.revoked'));
    expect(revokedHmac).toHaveLength(3);
    const wh = new Webhook(hmac.secret!);
    const subjects: string[] = [];
    for (const d of revokedHmac) {
      expect(d.headers['content-type']).toBe('application/json');
      const payload = wh.verify(d.body.toString('utf8'), d.headers as Record<string, string>) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
      expect(payload.event_type).toBe('ns.authority.revoked');
      expect(d.headers['webhook-id']).toBe(payload.event_id);
      expect(payload.delivery.idempotency_key).toBe(payload.event_id);
      expect(await verifyDocument(payload)).toBe(true);
      subjects.push(payload.subject_ref);
    }
    expect(subjects.sort()).toEqual(grants);
    // a tampered body does not verify
    expect(() =>
      wh.verify(revokedHmac[0]!.body.toString('utf8').replace('revoked', 'REVOKED'), revokedHmac[0]!.headers as never),
    ).toThrow();
    expect(hmacDeliveries.length).toBeGreaterThanOrEqual(3);

    // asymmetric: v1a over {id}.{timestamp}.{body} with the JWKS key, and the envelope's own signature
    const asym = endpoints.asymmetric!;
    await asym.receiver.waitFor(3);
    await new Promise((r) => setTimeout(r, 200));
    const revokedAsym = asym.receiver.received.filter((d) => d.body.includes('ns.authority.revoked'));
    expect(revokedAsym).toHaveLength(3);
    for (const d of revokedAsym) {
      const key = await jwksKey(String(d.headers['webhook-key-id']));
      const sig = v1aSignature(String(d.headers['webhook-signature']));
      expect(edVerify(null, signedContent(d.headers, d.body), key, sig)).toBe(true);
      const tampered = Buffer.from(d.body);
      tampered[10] = tampered[10]! ^ 1;
      expect(edVerify(null, signedContent(d.headers, tampered), key, sig)).toBe(false);
      const envelope = JSON.parse(d.body.toString('utf8'));
      expect(await verifyDocument(envelope)).toBe(true);
      expect(d.headers['webhook-id']).toBe(envelope.event_id);
    }

    // cose: a tagged COSE_Sign1 (tag 18), alg EdDSA (-8) and kid in the protected header, payload the envelope
    const cose = endpoints.cose!;
    await cose.receiver.waitFor(3);
    await new Promise((r) => setTimeout(r, 200));
    const coseSubjects: string[] = [];
    for (const d of cose.receiver.received) {
      expect(d.headers['content-type']).toBe('application/cose');
      const tag = decode(new Uint8Array(d.body)) as Tag;
      expect(tag).toBeInstanceOf(Tag);
      expect(Number(tag.tag)).toBe(18);
      const [protectedBytes, , payload, signature] = tag.contents as [Uint8Array, unknown, Uint8Array, Uint8Array];
      const header = decode(protectedBytes) as Map<number, unknown>;
      expect(header.get(1)).toBe(-8);
      const kid = Buffer.from(header.get(4) as Uint8Array).toString('utf8');
      const key = await jwksKey(kid);
      const sigStructure = encode(['Signature1', protectedBytes, new Uint8Array(0), payload]);
      expect(edVerify(null, sigStructure, key, signature)).toBe(true);
      const envelope = JSON.parse(Buffer.from(payload).toString('utf8'));
      expect(Buffer.from(payload).toString('utf8')).toBe(canonicalize(envelope));
      expect(await verifyDocument(envelope)).toBe(true);
      // v1a covers the COSE bytes too
      expect(
        edVerify(null, signedContent(d.headers, d.body), key, v1aSignature(String(d.headers['webhook-signature']))),
      ).toBe(true);
      if (envelope.event_type === 'ns.authority.revoked') coseSubjects.push(envelope.subject_ref);
    }
    expect(coseSubjects.sort()).toEqual(grants);

    // the attempts log says succeeded, newest first
    const log = await api('GET', `/v1/webhook-endpoints/${encodeURIComponent(hmac.id)}/deliveries`);
    expect(log.status).toBe(200);
    const revokedLog = log.body.items.filter((i: { event_type: string }) => i.event_type === 'ns.authority.revoked');
    expect(revokedLog).toHaveLength(3);
    for (const item of revokedLog) {
      expect(item).toMatchObject({ attempt: 1, status: 'succeeded', response_status: 204, next_attempt_at: null });
      expect(typeof item.duration_ms).toBe('number');
    }
    // the secret is never shown again
    const read = await api('GET', `/v1/webhook-endpoints/${encodeURIComponent(hmac.id)}`);
    expect(read.body.secret).toBeUndefined();
    expect(JSON.stringify(read.body)).not.toContain('whsec_');
  }, 60_000);
});
