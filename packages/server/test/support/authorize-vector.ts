/**
 * Sends a decision vector's request to POST /v1/runtime/authorize the way the vector's payload facts say it arrived:
 * unsigned (`present: false`), with a broken signature (`signature_valid: false`), or signed with the vector's
 * `created`; a non-fresh nonce is reproduced by sending the identical signed request twice and judging the second.
 * A chain whose leaf was made from a mandate or allowance is used only by a request that names it
 * (services/authorize/grant-chain.ts), so the body names the leaf's mandate (`mandate: { mandate_id }`).
 */
import { moneyToJson, type DecisionRequest } from '@aar/core';
import type { ApiResponse } from './api-call.ts';
import type { DecisionVector } from './decision-vectors.ts';
import type { SeededVector } from './seed-decision-vector.ts';

/** The mandate the authorize body names: that of the chain's leaf, when it was made from one. */
export function namedMandateOf(vector: DecisionVector): { mandate_id: string } | undefined {
  const { snapshot } = vector.input;
  const leaf = snapshot.grant_lookup === 'found' ? snapshot.grants.at(-1) : undefined;
  return leaf?.mandate ? { mandate_id: leaf.mandate.mandate_id } : undefined;
}

/** The authorize body for a DecisionRequest: amounts back in major units, as an agent sends them. */
export function authorizeBodyOf(request: DecisionRequest, mandate?: { mandate_id: string }): Record<string, unknown> {
  if (request.basket_hash !== undefined) throw new Error('the authorize body has no basket_hash member');
  const resource: Record<string, unknown> = {};
  if (request.merchant_id !== undefined) resource.merchant_id = request.merchant_id;
  if (request.amount !== undefined) Object.assign(resource, moneyToJson(request.amount));
  return {
    actor_entity_id: request.actor_entity_id,
    principal_entity_id: request.principal_entity_id,
    subject: request.subject,
    ...(Object.keys(resource).length > 0 ? { resource } : {}),
    ...(request.instrument_id !== undefined ? { scope: { instrument: request.instrument_id } } : {}),
    ...(request.basket !== undefined ? { basket: request.basket } : {}),
    ...(request.policy_decision_id !== undefined ? { policy_decision_id: request.policy_decision_id } : {}),
    ...(request.context !== undefined ? { context: request.context } : {}),
    ...(mandate !== undefined ? { mandate } : {}),
    ...(request.agent_metadata !== undefined ? { agent_metadata: request.agent_metadata } : {}),
  };
}

export async function authorizeVector(base: string, seeded: SeededVector, vector: DecisionVector) {
  const payload = vector.input.snapshot.payload;
  const url = `${base}/v1/runtime/authorize`;
  const text = JSON.stringify(authorizeBodyOf(vector.input.request, namedMandateOf(vector)));
  const send = async (signature: Record<string, string>): Promise<ApiResponse> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${seeded.runtimeToken}`, 'content-type': 'application/json', ...signature },
      body: text,
    });
    return { status: res.status, body: await res.json() };
  };
  if (!payload.present) return send({});
  const signed: Record<string, string> = { ...(await seeded.signer.sign({ method: 'POST', url, body: text })) };
  const judged = payload.signature_valid ? signed : { ...signed, signature: corruptSignature(signed.signature) };
  if (!payload.nonce_fresh) {
    const first = await send(signed);
    if (first.status !== 200) throw new Error(`first send -> ${first.status} ${JSON.stringify(first.body)}`);
    await seeded.resetMutableState(); // the first decision may have reserved spend or used the approval
  }
  return send(judged);
}

/** Flips the first base64 character of the `sig=:...:` value: the structure parses, the signature fails. */
function corruptSignature(header: string | undefined): string {
  if (header === undefined) throw new Error('no signature header to corrupt');
  return header.replace(/:(.)/, (_m, c: string) => `:${c === 'A' ? 'B' : 'A'}`);
}
