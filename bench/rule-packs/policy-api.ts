/**
 * The policy endpoints the benchmark drives, over the service's own HTTP API as an administrator would (CONTRACT
 * section 19): a draft stored, published (tests run, signed by the service), activated deployment-wide, deactivated.
 * Any answer but the expected status throws with the service's problem text.
 */

export interface AdminApi {
  base: string;
  adminToken: string;
}

async function call(
  api: AdminApi,
  method: string,
  path: string,
  expected: number,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${api.base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${api.adminToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 600)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** `POST /v1/rule-packs` (draft), then `…/publish`; returns the published version's digest. */
export async function publishPack(api: AdminApi, doc: Record<string, unknown>): Promise<string> {
  const name = String(doc.pack_id).replace(/^ns:rule_pack:/, '');
  await call(api, 'POST', '/v1/rule-packs', 201, doc);
  const published = await call(api, 'POST', `/v1/rule-packs/${name}/versions/${String(doc.version)}/publish`, 200);
  if (typeof published.digest !== 'string') throw new Error(`publish of ${name} answered no digest`);
  return published.digest;
}

/** `POST /v1/rule-activations` for the whole deployment, enforced; returns the activation id. */
export async function activateForDeployment(api: AdminApi, name: string, version: string): Promise<string> {
  const activation = await call(api, 'POST', '/v1/rule-activations', 201, {
    pack_id: `ns:rule_pack:${name}`,
    version,
    target: { deployment: true },
    mode: 'enforce',
  });
  if (activation.state !== 'active' || typeof activation.activation_id !== 'string') {
    throw new Error(`activation of ${name} answered ${JSON.stringify(activation)}`);
  }
  return activation.activation_id;
}

/** `DELETE /v1/rule-activations/{id}`: deactivated for good (the next activation of the pack is a new one). */
export async function deactivate(api: AdminApi, activationId: string): Promise<void> {
  const out = await call(api, 'DELETE', `/v1/rule-activations/${encodeURIComponent(activationId)}`, 200);
  if (out.state !== 'deactivated') throw new Error(`deactivation of ${activationId} answered ${JSON.stringify(out)}`);
}

/** `GET /v1/decisions/{id}` with a runtime (or auditor) token: the recorded request, snapshot and result. */
export async function readDecision(base: string, token: string, id: string): Promise<Record<string, unknown>> {
  return call({ base, adminToken: token }, 'GET', `/v1/decisions/${encodeURIComponent(id)}`, 200);
}
