/**
 * The evidence pack's `agent_metadata` check (issue 30, aar-decide/1.5.0) on packs the service made
 * (vectors/evidence-packs-with-agent-metadata.json): each verifies and replays; each edit an attacker could make to
 * the attestation, the agent key in the snapshot or the digests fails with its code; and packs of earlier engines
 * (1.4.0 mandates, 1.3.0 rule packs) verify and replay unchanged, with no `agent_metadata` check recorded.
 */
import { generateKeyPairSync, sign as nodeSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentMetadataDigest, checkPackAgentMetadata } from '../../src/agent-metadata/index.ts';
import { verifyEvidencePack } from '../../src/evidence/index.ts';
import { signDocument } from '../../src/signing/index.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const read = (name: string): Json =>
  JSON.parse(readFileSync(new URL(`../../../../vectors/${name}`, import.meta.url), 'utf8'));
const file = read('evidence-packs-with-agent-metadata.json');
const packOf = (name: string): Json => structuredClone(file.cases.find((c: Json) => c.name === name).pack);
const actorOf = (pack: Json): Json => pack.decision_map.nodes.find((n: Json) => n.type === 'actor');

describe('evidence packs with agent metadata', () => {
  const cases: Array<[string, Json]> = file.cases.map((c: Json) => [c.name, c]);
  it.each(cases)('%s verifies and replays', async (_name: string, c: Json) => {
    const result = await verifyEvidencePack(c.pack, file.jwks);
    expect(result.valid, JSON.stringify(result.checks)).toBe(true);
    expect(result.checks.find((x) => x.check === 'agent_metadata')).toEqual({ check: 'agent_metadata', valid: true });
    expect(result.replay_decision?.reason).toBe(c.reason);
    expect(c.pack.engine_version).toBe('aar-decide/1.5.0');
  });

  it('fails each edit with its code', async () => {
    const edited = packOf('allowed-matching');
    edited.agent_metadata_attestation.operator = 'Someone Else Ltd';
    expect(await checkPackAgentMetadata(edited)).toBe('agent_metadata_digest_mismatch');

    const dropped = packOf('allowed-matching');
    delete dropped.agent_metadata_attestation;
    expect(await checkPackAgentMetadata(dropped)).toBe('agent_metadata_missing');

    const shown = packOf('allowed-matching');
    actorOf(shown).agent_metadata.model = 'another';
    expect(await checkPackAgentMetadata(shown)).toBe('agent_metadata_mismatch');

    const unbound = packOf('allowed-matching');
    actorOf(unbound).attestation_digest = `sha-256:${'A'.repeat(43)}`;
    expect(await checkPackAgentMetadata(unbound)).toBe('agent_metadata_digest_mismatch');

    // re-signed by another key, its digest put everywhere: the agent key in the snapshot refuses it
    const other = generateKeyPairSync('ed25519').privateKey;
    const swapped = packOf('allowed-matching');
    const resigned = await signDocument(swapped.agent_metadata_attestation, {
      keyId: swapped.snapshot.actor.entity_id,
      sign: async (m) => new Uint8Array(nodeSign(null, m, other)),
    });
    swapped.agent_metadata_attestation = resigned;
    swapped.snapshot.agent_metadata.digest = agentMetadataDigest(resigned);
    actorOf(swapped).attestation_digest = agentMetadataDigest(resigned);
    expect(await checkPackAgentMetadata(swapped)).toBe('agent_metadata_signature_invalid');
    // and the whole pack fails: the snapshot and the map are signed and committed to
    expect((await verifyEvidencePack(swapped, file.jwks)).valid).toBe(false);
  });

  it('replays packs of earlier engines unchanged, without an agent_metadata check', async () => {
    const mandates = read('evidence-packs-with-mandates.json');
    for (const entry of mandates.packs) {
      const result = await verifyEvidencePack(entry.pack, mandates.jwks);
      expect(entry.pack.engine_version).toBe('aar-decide/1.4.0');
      expect(result.valid, JSON.stringify(result.checks)).toBe(true);
      expect(result.checks.map((c) => c.check)).not.toContain('agent_metadata');
    }
    const rules = read('evidence-pack-with-rule-packs.json');
    const result = await verifyEvidencePack(rules.input.pack, rules.input.jwks);
    expect(result.checks.map((c) => c.check)).not.toContain('agent_metadata');
    expect(result.replay_decision?.matches).toBe(true);
  });
});
