/**
 * A purchase world (purchase-world.ts) plus what payload-artefact tests need: the agent's statement signer (real
 * Ed25519, the agent's registered key), a keyless second agent with its own grant, payload digests, and the row
 * counts a refusal must leave as they were.
 */
import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import { createWebCryptoSigner, signDocument } from '@aar/core';
import type { AppContext } from '../../../src/app-context.ts';
import { inOneYear } from '../../support/fixtures.ts';
import { buildPurchaseWorld } from '../../support/purchase-world.ts';

export const AGENT = 'ns:entity:agent:shopper-1';
export const KEYLESS = 'ns:entity:agent:keyless-1';
export const STATEMENT_SCHEMA = 'ns.payload_artefact_statement.v1';

export const digestOf = (payload: string): string => createHash('sha256').update(payload, 'utf8').digest('base64url');
export const unknownDecision = (): string => `ns:decision:${uuidV7Like()}`;

function uuidV7Like(): string {
  const u = randomUUID();
  return `${u.slice(0, 14)}7${u.slice(15)}`;
}

type PrivateJwk = { kty: 'OKP'; crv: 'Ed25519'; x: string; d: string };

/** The agent's signature over the artefact statement (docs/artefacts.md), made with `privateJwk` under `keyId`. */
export async function signStatement(
  privateJwk: PrivateJwk,
  keyId: string,
  fields: { kind: string; digest: string; policy_decision_id: string },
): Promise<{ algorithm: 'ed25519'; key_id: string; signature: string }> {
  const key = await globalThis.crypto.subtle.importKey('jwk', privateJwk, { name: 'Ed25519' }, false, ['sign']);
  const signed = await signDocument({ schema_version: STATEMENT_SCHEMA, ...fields }, createWebCryptoSigner(keyId, key));
  return signed.signature as { algorithm: 'ed25519'; key_id: string; signature: string };
}

export function otherPrivateJwk(): PrivateJwk {
  return generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as PrivateJwk;
}

export async function buildArtefactWorld(base: string, adminToken: string, signerNow?: () => number) {
  const w = await buildPurchaseWorld(base, adminToken, signerNow ? { signerNow } : {});
  await w.must('POST', '/v1/entities', { type: 'agent', id: 'keyless-1', display_name: 'Keyless' });
  await w.must('POST', '/v1/grants', {
    principal_entity_id: 'ns:entity:person:alice',
    actor_entity_id: KEYLESS,
    capability_id: 'ns:capability:payment_action:card_purchase',
    resource_id: 'ns:credential:card-token:tok-1',
    scope: {
      max_amount_per_purchase: { amount: 50, currency: 'EUR' },
      max_daily_amount: { amount: 1000, currency: 'EUR' },
      valid_until: inOneYear(),
    },
  });
  const auditorToken: string = (await w.must('POST', '/v1/tokens', { role: 'auditor' })).token;

  /** an allowed execute of `amount` EUR at the grocer, signed by the agent; its decision id */
  const allowed = async (amount = 10, extra: Record<string, unknown> = {}): Promise<string> => {
    const res = await w.authorize(w.purchase(amount, extra));
    if (res.body.decision !== 'allow_with_constraints') throw new Error(`not allowed: ${JSON.stringify(res.body)}`);
    return res.body.policy_decision_id as string;
  };
  /** POST /v1/payload-artefacts as the runtime; signed by the agent unless `signature` says otherwise */
  const present = async (
    body: { kind?: string; digest?: string; policy_decision_id: string; mandate_id?: string },
    signature: 'agent' | 'none' | { algorithm: string; key_id: string; signature: string } = 'agent',
    token = w.runtimeToken,
  ) => {
    const fields = { kind: body.kind ?? 'checkout', digest: body.digest ?? digestOf(randomUUID()), ...body };
    const sig =
      signature === 'agent'
        ? await signStatement(w.privateJwk, AGENT, {
            kind: fields.kind,
            digest: fields.digest,
            policy_decision_id: fields.policy_decision_id,
          })
        : signature === 'none'
          ? undefined
          : signature;
    return w.call('POST', '/v1/payload-artefacts', { ...fields, ...(sig ? { signature: sig } : {}) }, token);
  };
  const execute = (id: string, outcome: 'executed' | 'failed' = 'executed', token = w.runtimeToken) =>
    w.call('POST', `/v1/payload-artefacts/${id}/execute`, { outcome }, token);

  return { ...w, auditorToken, allowed, present, execute };
}

export type ArtefactWorld = Awaited<ReturnType<typeof buildArtefactWorld>>;

/** The rows a refused request must leave as they were. */
export async function rowCounts(ctx: AppContext) {
  const db = ctx.store.db;
  const n = async (t: 'payload_artefacts' | 'events' | 'audit_entries' | 'decisions' | 'spend_counters') =>
    Number(
      (
        await db
          .selectFrom(t)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const states = await db.selectFrom('payload_artefacts').select(['payload_artefact_id', 'state']).execute();
  const outcomes = await db.selectFrom('decisions').select(['policy_decision_id', 'outcome']).execute();
  const spend = await db.selectFrom('spend_counters').select(['grant_id', 'day', 'reserved_minor']).execute();
  return {
    artefacts: await n('payload_artefacts'),
    events: await n('events'),
    audit: await n('audit_entries'),
    decisions: await n('decisions'),
    states: Object.fromEntries(states.map((s) => [s.payload_artefact_id, s.state])),
    outcomes: Object.fromEntries(outcomes.map((o) => [o.policy_decision_id, o.outcome])),
    spend: spend.map((s) => `${s.grant_id} ${s.day} ${Number(s.reserved_minor)}`).sort(),
  };
}
