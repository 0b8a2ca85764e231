/**
 * The preview documents' verifiers (issue 30) over vectors/preview: documents the service made (payload artefacts,
 * memory records and their tombstone chain, a compliance report, and where present the authority graph, a search
 * result and a data-flow graph), with the JWKS that verifies them and tampered variants naming the check that must
 * fail. The Python and Go SDKs walk the same folder. Every valid signed document is also changed one byte at a time:
 * each change that still parses fails, and none throws.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  verifyAuthorityGraph,
  verifyComplianceReport,
  verifyDataFlowGraph,
  verifyMemoryChain,
  verifyMemoryRecord,
  verifyPayloadArtefact,
  verifySearchResult,
  type Jwks,
  type JwksSource,
  type PreviewCheck,
  type TrustedKeySource,
} from '../../src/index.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const dir = fileURLToPath(new URL('../../../../vectors/preview/', import.meta.url));
const load = (name: string): Json => JSON.parse(readFileSync(`${dir}${name}`, 'utf8'));
const files = readdirSync(dir)
  .filter((name) => name.endsWith('.json') && name !== 'jwks.json')
  .sort();
const jwks = load('jwks.json') as Jwks;

const SINGLE: Record<
  string,
  (doc: unknown, keys: TrustedKeySource) => Promise<{ valid: boolean; checks: PreviewCheck[] }>
> = {
  payload_artefact: verifyPayloadArtefact,
  memory_record: verifyMemoryRecord,
  compliance_report: verifyComplianceReport,
  authority_graph: verifyAuthorityGraph,
  search_result: verifySearchResult,
  data_flow_graph: verifyDataFlowGraph,
};

async function judge(kind: string, input: Json, keys: TrustedKeySource = jwks) {
  if (kind === 'memory_chain') return verifyMemoryChain(input.records, keys);
  if (kind === 'memory_record') {
    return verifyMemoryRecord(input.document, keys, {
      ...(input.content !== undefined ? { content: input.content, contentSalt: input.content_salt } : {}),
      ...(input.record !== undefined ? { record: input.record } : {}),
    });
  }
  if (kind === 'payload_artefact') {
    return verifyPayloadArtefact(input.document, keys, {
      ...(input.payload !== undefined ? { payload: input.payload } : {}),
      ...(input.agent_key !== undefined ? { agentKey: input.agent_key } : {}),
    });
  }
  if (kind === 'search_result' && input.items !== undefined) {
    return verifySearchResult(input.document, keys, { items: input.items });
  }
  const verify = SINGLE[kind];
  if (verify === undefined) throw new Error(`unknown kind ${kind}`);
  return verify(input.document, keys);
}

/** a JwksSource over the vectors' JWKS, recording the key ids it was asked for */
function source(): JwksSource & { asked: Set<string> } {
  const asked = new Set<string>();
  return {
    url: 'vectors:preview/jwks.json',
    asked,
    fetchCount: 1,
    get: async () => jwks,
    refresh: async () => jwks,
    getKey: async (kid) => {
      asked.add(kid);
      return jwks.keys.find((k) => k.kid === kid);
    },
    trustedKeysFor: async (kids) => {
      for (const kid of kids) asked.add(kid);
      return jwks;
    },
  };
}

describe('preview verifiers over vectors/preview', () => {
  it('has the vectors the issue asks for', () => {
    const kinds = new Set(files.map((f) => load(f).kind as string));
    for (const kind of ['payload_artefact', 'memory_record', 'memory_chain', 'compliance_report']) {
      expect(kinds, kind).toContain(kind);
    }
  });

  for (const file of files) {
    it(`${file}`, async () => {
      const vector = load(file);
      const result = await judge(vector.kind, vector.input);
      const failed = result.checks.filter((c) => !c.valid);
      if (vector.want.valid) {
        expect(failed).toEqual([]);
        expect(result.valid).toBe(true);
      } else {
        expect(result.valid).toBe(false);
        expect(failed).toContainEqual(
          expect.objectContaining({ check: vector.want.check, valid: false, failure: vector.want.failure }),
        );
      }
    });
  }

  it('looks keys up in the source the caller passed, and nowhere else', async () => {
    const vector = load(files.find((f) => load(f).kind === 'memory_record' && load(f).want.valid) as string);
    const keys = source();
    expect((await judge('memory_record', vector.input, keys)).valid).toBe(true);
    expect([...keys.asked]).toEqual([vector.input.document.signature.key_id]);
    // the same document against a JWKS without its key: unknown_key, whatever the document says about itself
    const other = await judge('memory_record', vector.input, { keys: [] });
    expect(other.checks[0]).toMatchObject({ check: 'signature', valid: false, failure: 'unknown_key' });
  });

  it('answers hostile input with a result, never a throw', async () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
        ownKeys() {
          throw new Error('boom');
        },
      },
    );
    for (const verify of Object.values(SINGLE)) {
      for (const input of [null, 1, 'x', [], {}, { signature: 7 }, hostile]) {
        const result = await verify(input, jwks);
        expect(result.valid).toBe(false);
      }
    }
    for (const input of [null, {}, [null], [{}], [hostile]]) {
      expect((await verifyMemoryChain(input, jwks)).valid).toBe(false);
    }
  });
});

describe('every one-byte change of a signed document fails', () => {
  for (const file of files) {
    const vector = load(file);
    if (!vector.want.valid || vector.input.document === undefined) continue;
    it(`${file}`, async () => {
      const text = JSON.stringify(vector.input.document);
      const bytes = Buffer.from(text, 'utf8');
      let parsed = 0;
      for (let i = 0; i < bytes.length; i++) {
        const changed = Buffer.from(bytes);
        changed[i] = (changed[i] as number) ^ 0x01;
        let doc: unknown;
        try {
          doc = JSON.parse(changed.toString('utf8'));
        } catch {
          continue; // not JSON any more: nothing a verifier is ever handed as a document
        }
        if (JSON.stringify(doc) === text) continue; // an equivalent spelling, not a change of the document
        parsed++;
        const result = await judge(vector.kind, { document: doc });
        expect(result.valid, `byte ${i} of ${file}`).toBe(false);
      }
      expect(parsed).toBeGreaterThan(bytes.length / 2);
    }, 180_000); // thousands of signature verifications: give a loaded machine time
  }
});
