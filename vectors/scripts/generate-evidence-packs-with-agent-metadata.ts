/**
 * `vectors/evidence-packs-with-agent-metadata.json` (issue 30, aar-decide/1.5.0): evidence packs the SERVICE made
 * (the server's test runtime in-process: real SQLite store, real keys, real HTTP on a loopback socket) for purchases by
 * an agent that attested its metadata with its own key (POST /v1/entities/{id}/metadata-attestations), with the JWKS
 * that verifies them, so the Python and Go SDKs verify and replay, offline, packs the service really made:
 * `allowed-matching` (the request presents the attested metadata), `denied-mismatch` (it presents another software
 * version: `agent_metadata_mismatch`), `allowed-not-presented` (no metadata presented; the map still binds it).
 *
 *   node --import tsx vectors/scripts/generate-evidence-packs-with-agent-metadata.ts
 *
 * Keys, ids and instants differ between runs (the clock is the real one), so the output is NOT byte-identical from run
 * to run. The script refuses to write a pack core's verifier (with replay and the `agent_metadata` check) does not
 * find valid.
 */
import { createPrivateKey, sign as nodeSign } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { signDocument, verifyEvidencePack } from '../../packages/core/src/index.ts';
import { buildPurchaseWorld } from '../../packages/server/test/support/purchase-world.ts';
import { ADMIN_TOKEN, startTestRuntime } from '../../packages/server/test/support/test-runtime.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const out = fileURLToPath(new URL('../evidence-packs-with-agent-metadata.json', import.meta.url));
const AGENT = 'ns:entity:agent:shopper-1';
const METADATA = { model: 'gpt-shop-7', software_version: 'shopper/2.4.1', operator: 'Example Agents GmbH' };

const rt = await startTestRuntime();
try {
  const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
  const world = await buildPurchaseWorld(base, ADMIN_TOKEN);
  const key = createPrivateKey({ key: world.privateJwk, format: 'jwk' });
  const doc = await signDocument(
    {
      schema_version: 'ns.agent_metadata_attestation.v1',
      agent_entity_id: AGENT,
      ...METADATA,
      issued_at: new Date().toISOString(),
    },
    { keyId: AGENT, sign: async (m) => new Uint8Array(nodeSign(null, m, key)) },
  );
  await world.must('POST', `/v1/entities/${AGENT}/metadata-attestations`, doc, world.runtimeToken);
  const jwks = await world.must('GET', '/.well-known/jwks.json');
  const cases: Array<{ name: string; decision: string; reason: string; pack: Json }> = [];
  const purchases: Array<[string, Record<string, unknown>]> = [
    ['allowed-matching', { agent_metadata: METADATA }],
    ['denied-mismatch', { agent_metadata: { ...METADATA, software_version: 'shopper/2.5.0' } }],
    ['allowed-not-presented', {}],
  ];
  for (const [name, extra] of purchases) {
    const res = await world.authorize(world.purchase(10, extra));
    if (res.status !== 200) throw new Error(`${name}: authorize answered ${res.status}`);
    const pack = await world.must('GET', `/v1/evidence-packs/${res.body.evidence_refs[0]}`);
    const verified = await verifyEvidencePack(pack, jwks);
    const check = verified.checks.find((c) => c.check === 'agent_metadata');
    if (!verified.valid || !check?.valid) throw new Error(`${name}: core does not verify the pack`);
    cases.push({ name, decision: res.body.decision, reason: res.body.reason, pack });
  }
  const generator = 'vectors/scripts/generate-evidence-packs-with-agent-metadata.ts';
  writeFileSync(out, `${JSON.stringify({ generator, jwks, count: cases.length, cases }, null, 2)}\n`);
  console.log(`wrote ${cases.length} packs to ${out}`);
} finally {
  await rt.close();
}
