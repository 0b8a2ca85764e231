/**
 * Issue 29: "a benchmark of authorize with a presented closed mandate against a plain authorize in the same run".
 * One `aar serve` (embedded SQLite, child process) with signed requests required, a trusted AP2 issuer and an open
 * payment mandate registered under the bench agent's root grant (POST /v1/mandates). Every purchase is 1.00 EUR at the
 * grocer, signed by the agent (RFC 9421, a nonce each) before the clock starts; a mandate purchase also carries a fresh
 * closed payment mandate (`mandate.presentation`: the open mandate ~~ a key-binding hop the agent signed over it with
 * its own nonce), so the service verifies the whole chain (issuer ES256 signature, disclosure digests, sd_hash, the
 * agent's ES256 key binding), spends the nonce and decides under the mandate's grant with its budget.
 * Rounds alternate (plain, mandate, mandate, plain, ...) in one process so a drift of the shared machine weighs on both.
 * CPU = the server process's user + system time (/proc) over a round ÷ the allows it recorded.
 */
import os from 'node:os';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createRequestSigner, type Ed25519PrivateJwk } from '@aar/sdk';
import { AGENT_ID, buildWorld, purchaseBody, type BenchWorld } from './authorize-http/build-world.ts';
import { AUTHORIZE_PATH, signRequestPool, type SignedRequest } from './authorize-http/request-pool.ts';
import type { Benchmark, BenchReport } from './lib/bench-report.ts';
import { adminPost, startBenchServer, type BenchServer } from './lib/bench-server.ts';
import { allowAuthorize, cpuMeasurement, pooled, rateMeasurement, runRound, type Round } from './lib/cpu-rounds.ts';
import { chain, issueHop, kbHop, newKey, type TestKey } from '../packages/core/test/mandates/support/build-chain.ts';

const CONNECTIONS = 8;
const ROUND_REQUESTS = Number(process.env.AAR_BENCH_MANDATES_ROUND ?? 400);
const ROUNDS = Number(process.env.AAR_BENCH_MANDATES_ROUNDS ?? 3);
const WARMUP = Number(process.env.AAR_BENCH_MANDATES_WARMUP ?? 300);
const ISSUER = 'https://agent-provider.bench.example';
const AUDIENCE = 'https://aar.bench.example';
const PAYEE = 'grocer-payee';
const MERCHANT = 'bench-grocer';
const INSTRUMENT = 'ns:card_token:bench-card';
/** the agent the mandate is given to: a grant below the bench agent's root grant (an agent cannot delegate to itself) */
const BUYER_ID = 'ns:entity:agent:bench-buyer';

export const mandatesBench: Benchmark = {
  name: 'mandates',
  description:
    'authorize with a presented closed AP2 payment mandate (`mandate.presentation`: issuer-signed open mandate ~~ the agent’s key-binding hop, ES256) against a plain authorize, over loopback HTTP (`aar serve`, SQLite); server CPU per allowed decision, alternating rounds in one run.',
  run: () => runMandatesBench(),
};

export async function runMandatesBench(
  options: { rounds?: number; roundRequests?: number; warmup?: number } = {},
): Promise<BenchReport> {
  const rounds = options.rounds ?? ROUNDS;
  const perRound = options.roundRequests ?? ROUND_REQUESTS;
  const warmup = options.warmup ?? WARMUP;
  const loadAtStart = os.loadavg();
  const aar = await startBenchServer('mandates', { AAR_MANDATE_AUDIENCES: AUDIENCE });
  try {
    const world = await buildWorld(aar.base, aar.adminToken, 1, { mayDelegate: true });
    const mandate = await registerMandate(aar);
    const mandateRequests = (n: number) => signMandatePool(world, mandate, n);

    // warm-up: both paths once through the JIT, untimed
    await runRound(aar, await signRequestPool(world, warmup), CONNECTIONS, allowAuthorize);
    await runRound(aar, await mandateRequests(warmup), CONNECTIONS, allowAuthorize);

    const groups: Record<'plain' | 'mandate', Round[]> = { plain: [], mandate: [] };
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? (['plain', 'mandate'] as const) : (['mandate', 'plain'] as const);
      for (const which of order) {
        const requests = which === 'plain' ? await signRequestPool(world, perRound) : await mandateRequests(perRound);
        groups[which].push(await runRound(aar, requests, CONNECTIONS, allowAuthorize));
      }
    }
    return report(groups, rounds, perRound, [loadAtStart, os.loadavg()]);
  } finally {
    await aar.stop();
  }
}

interface RegisteredMandate {
  /** the buyer's P-256 key (the mandate's `cnf`): it signs each closed payment mandate */
  agentKey: TestKey;
  /** the buyer's Ed25519 key: it signs each authorize request (RFC 9421) */
  requestKey: Ed25519PrivateJwk;
  /** the open mandate as registered: every closed presentation starts with it */
  open: string;
}

/**
 * A trusted issuer, a buyer agent, and an open payment mandate (issuer -> the buyer's P-256 key) made a grant to the
 * buyer below the bench agent's root grant.
 */
async function registerMandate(aar: BenchServer): Promise<RegisteredMandate> {
  const issuerKey = await newKey('ES256', 'bench-issuer-1');
  const agentKey = await newKey('ES256');
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const pub = publicKey.export({ format: 'jwk' });
  await adminPost(aar, '/v1/entities', {
    type: 'agent',
    id: 'bench-buyer',
    display_name: 'Bench buyer',
    public_key_jwk: { kty: pub.kty, crv: pub.crv, x: pub.x },
  });
  await adminPost(aar, '/v1/mandate-issuers', { issuer: ISSUER, format: 'ap2', jwks: { keys: [issuerKey.publicJwk] } });
  const now = Math.floor(Date.now() / 1000);
  const open = await issueHop(
    issuerKey,
    { typ: 'dc+sd-jwt', kid: 'bench-issuer-1' },
    {
      iss: ISSUER,
      iat: now - 60,
      delegate_payload: [
        {
          vct: 'mandate.payment.open.1',
          constraints: [
            { type: 'payment.amount_range', currency: 'EUR', max: 100_000, min: 0 },
            { type: 'payment.allowed_payees', allowed: [{ id: PAYEE, name: 'Grocer' }] },
            { type: 'payment.budget', currency: 'EUR', max: 100_000_000_000 },
            { type: 'payment.reference', conditional_transaction_id: randomBytes(32).toString('base64url') },
          ],
          cnf: { jwk: agentKey.publicJwk },
          iat: now - 60,
          // an hour inside the world's root grant (valid 24 h from when the world was built): a mandate may not outlive it
          exp: now + 23 * 3600,
        },
      ],
    },
    { delegate_payload: { _sd: [0], 0: { constraints: { 1: { allowed: { _sd: [0] } } } } } },
  );
  const grants = await adminGet(aar, `/v1/grants?actor_entity_id=${encodeURIComponent(AGENT_ID)}`);
  const root = (grants.items as Array<{ grant_id: string; parent_grant_id: string | null }>).find(
    (g) => g.parent_grant_id === null,
  );
  if (!root) throw new Error('the bench world has no root grant');
  await adminPost(aar, '/v1/mandates', {
    format: 'ap2',
    presentation: open,
    parent_grant_id: root.grant_id,
    actor_entity_id: BUYER_ID,
    payees: { [PAYEE]: MERCHANT },
  });
  return { agentKey, requestKey: privateKey.export({ format: 'jwk' }) as Ed25519PrivateJwk, open };
}

/** `count` purchases, each with its own closed payment mandate (own nonce) and its own RFC 9421 signature. */
async function signMandatePool(world: BenchWorld, mandate: RegisteredMandate, count: number): Promise<SignedRequest[]> {
  const signer = createRequestSigner({ keyId: BUYER_ID, privateJwk: mandate.requestKey });
  const purchase = { ...purchaseBody(), actor_entity_id: BUYER_ID };
  const url = `${world.base}${AUTHORIZE_PATH}`;
  const now = Math.floor(Date.now() / 1000);
  const pool: SignedRequest[] = [];
  for (let i = 0; i < count; i++) {
    const closed = await kbHop(
      mandate.agentKey,
      mandate.open,
      [
        {
          vct: 'mandate.payment.1',
          transaction_id: randomBytes(32).toString('base64url'),
          payee: { id: PAYEE, name: 'Grocer' },
          payment_amount: { amount: 100, currency: 'EUR' },
          payment_instrument: { id: INSTRUMENT, type: 'card', description: 'Card ending 4242' },
        },
      ],
      { aud: AUDIENCE, iat: now, nonce: randomBytes(16).toString('base64url') },
    );
    const body = JSON.stringify({ ...purchase, mandate: { presentation: chain(mandate.open, closed) } });
    const headers = await signer.sign({ method: 'POST', url, body });
    pool.push({
      method: 'POST',
      path: AUTHORIZE_PATH,
      headers: { ...headers, authorization: `Bearer ${world.runtimeToken}`, 'content-type': 'application/json' },
      body,
    });
  }
  return pool;
}

async function adminGet(aar: BenchServer, path: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${aar.base}${path}`, { headers: { authorization: `Bearer ${aar.adminToken}` } });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${path} answered ${res.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

function report(
  groups: Record<'plain' | 'mandate', Round[]>,
  rounds: number,
  perRound: number,
  load: number[][],
): BenchReport {
  const ratio = pooled(groups.mandate).cpuMsPerDecision / pooled(groups.plain).cpuMsPerDecision;
  const pairs = groups.mandate.map(
    (r, i) => r.cpuMs / r.decisions / (groups.plain[i]!.cpuMs / groups.plain[i]!.decisions),
  );
  const fmt = (x: number) => x.toFixed(3);
  return {
    name: mandatesBench.name,
    description: mandatesBench.description,
    measurements: [
      cpuMeasurement('CPU per decision', 'plain authorize', groups.plain, true),
      cpuMeasurement('CPU per decision', 'authorize + closed AP2 mandate', groups.mandate, false),
      rateMeasurement('decisions per second', 'plain authorize', groups.plain, true),
      rateMeasurement('decisions per second', 'authorize + closed AP2 mandate', groups.mandate, false),
    ],
    notes: [
      `mandate CPU ÷ plain CPU per allowed decision: ${fmt(ratio)} pooled; per round pair: ${pairs.map(fmt).join(', ')}`,
      `${rounds} rounds per group, alternating; ${perRound} requests a round with ${CONNECTIONS} connections (closed loop); CPU = the server's user + system time (/proc) over the round ÷ allowed decisions`,
      "every request signed by its agent beforehand (RFC 9421, a nonce each): plain ones by the bench agent under its root grant (a 1-link chain), mandate ones by the buyer under the mandate's grant below that root (a 2-link chain, its budget), each with its own closed payment mandate (ES256 key binding, its own nonce), built beforehand; 1.00 EUR at a grocer, every answer checked to be an allow",
      `load average (1/5/15 min) at start ${load[0]!.map((x) => x.toFixed(2)).join('/')}, at end ${load[1]!.map((x) => x.toFixed(2)).join('/')}`,
    ],
  };
}
