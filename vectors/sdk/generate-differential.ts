/**
 * Differential cases for the SDKs' ports of `decide`: N (request, snapshot, now) triples made by mutating the
 * hand-written decision vectors with a seeded PRNG (mulberry32, so the output is the same on every run), each with
 * core's full result (decision, reason, obligations, stop conditions, reservation, effective scope and every check's
 * diagnostic). A port must reproduce the result exactly, canonical JSON for canonical JSON.
 *
 *   node --import tsx vectors/sdk/generate-differential.ts [count] [out]   (default 500, vectors/sdk/differential.json)
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decide } from '../../packages/core/src/decide/index.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const here = fileURLToPath(new URL('.', import.meta.url));
const count = Number(process.argv[2] ?? 500);
const out = process.argv[3] ?? join(here, 'differential.json');
const SEED = 20260415;

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(SEED);
const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
const chance = (p: number) => rand() < p;

const dir = join(here, '..', 'decisions');
const bases: Json[] = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')).input);

const NOW_SECONDS = 1776247200; // 2026-04-15T10:00:00Z
const iso = (s: number, frac = '') => new Date(s * 1000).toISOString().replace(/\.\d{3}Z$/, `${frac}Z`);
const CURRENCIES = ['EUR', 'JPY', 'BHD', 'USD', 'eur', 'EURO'];
const STATES = ['active', 'suspended', 'tombstoned', 'revoked', 'ACTIVE'];
const ACTIONS = ['search', 'compare', 'prepare', 'request_approval', 'execute', 'refund_request', 'dispute_prepare', 'pay'];
const CATEGORIES = ['5411', '5812', '7995', 'groceries', '4829'];
const JURISDICTIONS = ['DE', 'FR', 'BH', 'JP', 'US', 'de'];
const ODD_VALUES: readonly Json[] = [null, true, false, 0, -1, 1.5, '', 'x', [], {}, [1], { minor: 1 }];
// aar-decide/1.4.0 (issue 29): budgets, merchant lists and mandate bindings
const MERCHANTS = ['grocer-berlin', 'souq-manama', 'bakery-paris', 'ns:merchant:grocer-berlin', 'GROCER-BERLIN'];
const PERIODS = ['day', 'week', 'month', 'year', 'total', 'fortnight'];
const budget = (): Json => {
  const m = money();
  return m && typeof m === 'object' && !Array.isArray(m) && chance(0.9) ? { ...m, period: pick(PERIODS) } : m;
};
const mandate = (): Json =>
  chance(0.85)
    ? {
        mandate_id: pick(['ns:mandate:01963a4f-0a00-7c00-8a00-000000000001', 'ns:allowance:01963a4f-0b00-7c00-8a00-000000000002', '']),
        format: pick(['ap2', 'acp', 'vi']),
        digest: pick(['q2Vg0S0Zc9y8m6oBqv2x3N1f0dSxq6m6b9m6b0Zq6m4', '']),
        single_use: chance(0.9) ? chance(0.5) : pick(ODD_VALUES),
        used: chance(0.9) ? chance(0.5) : pick(ODD_VALUES),
      }
    : pick(ODD_VALUES);

// aar-decide/1.5.0 (issue 30): agent metadata values
const MODELS = ['gpt-shop-7', 'gpt-shop-8', '', 'GPT-SHOP-7', 'x'.repeat(120)];
const VERSIONS = ['shopper/2.4.1', 'shopper/2.5.0'];
const OPERATORS = ['Example Agents GmbH', 'Someone Else Ltd'];

const money = (): Json =>
  chance(0.85) ? { minor: int(0, 150000), currency: pick(CURRENCIES.slice(0, 4)) } : pick(ODD_VALUES);
const instant = (): string =>
  chance(0.9) ? iso(NOW_SECONDS + pick([-86400, -1, 0, 1, 3600, 86400 * 200]), pick(['', '', '.5', '.000000001'])) : pick(['2026-02-30T00:00:00Z', 'soon', '2026-04-15T10:00:00+01:00']);
const list = (pool: readonly string[]): Json => (chance(0.9) ? pool.filter(() => chance(0.5)) : pick(ODD_VALUES));

function mutateScope(scope: Json): void {
  const key = pick([
    'max_amount_per_purchase',
    'max_daily_amount',
    'requires_approval_above',
    'allowed_merchant_categories',
    'blocked_merchant_categories',
    'allowed_jurisdictions',
    'valid_until',
    'allowed_actions',
    'may_delegate',
    'max_delegation_depth',
    'budget',
    'allowed_merchants',
  ]);
  if (chance(0.15)) {
    delete scope[key];
    return;
  }
  if (key.startsWith('max_amount') || key.startsWith('max_daily') || key.startsWith('requires')) scope[key] = money();
  else if (key === 'allowed_merchant_categories' || key === 'blocked_merchant_categories') scope[key] = list(CATEGORIES);
  else if (key === 'allowed_jurisdictions') scope[key] = list(JURISDICTIONS);
  else if (key === 'allowed_actions') scope[key] = list(ACTIONS);
  else if (key === 'valid_until') scope[key] = instant();
  else if (key === 'may_delegate') scope[key] = chance(0.8) ? chance(0.5) : pick(ODD_VALUES);
  else if (key === 'budget') scope[key] = budget();
  else if (key === 'allowed_merchants') scope[key] = list(MERCHANTS);
  else scope[key] = chance(0.8) ? int(0, 3) : pick(ODD_VALUES);
}

function mutateGrant(grant: Json, chain: Json[]): void {
  switch (int(0, 11)) {
    case 0:
      grant.state = pick(STATES);
      break;
    case 1:
      grant.actor_state = pick(STATES);
      break;
    case 2:
      grant.signature_valid = chance(0.5) ? false : pick(ODD_VALUES);
      break;
    case 3:
      grant.depth = int(0, 3);
      break;
    case 4:
      grant.spent_today = money();
      break;
    case 5:
      grant.parent_grant_id = chance(0.5) ? null : (pick(chain).grant_id ?? 'ns:authority:grant:x');
      break;
    case 6:
      grant.capability_id = pick([
        'ns:capability:payment_action:card_purchase',
        'ns:capability:purchase:execute',
        'ns:capability:purchase:search',
        'ns:capability:other:thing',
      ]);
      break;
    case 7:
      grant.resource_id = pick(['ns:credential:card-token:tok-1', 'ns:card_token:tok-1', 'ns:card_token:tok-2']);
      break;
    case 8:
      if (chance(0.15)) delete grant.budget_spent;
      else grant.budget_spent = money();
      break;
    case 9:
      if (chance(0.15)) delete grant.mandate;
      else grant.mandate = mandate();
      break;
    default:
      if (grant.scope && typeof grant.scope === 'object') mutateScope(grant.scope);
      else grant.scope = {};
  }
}

function mutate(input: Json): void {
  const { request, snapshot } = input;
  const grants: Json[] = Array.isArray(snapshot.grants) ? snapshot.grants : [];
  switch (int(0, 16)) {
    case 0: {
      const key = pick(['required', 'present', 'signature_valid', 'nonce_fresh']);
      if (snapshot.payload) snapshot.payload[key] = chance(0.7) ? chance(0.5) : pick(ODD_VALUES);
      if (snapshot.payload && chance(0.3)) {
        snapshot.payload.signature_failure = pick(['signature_mismatch', 'Bad Code', 'unknown_key']);
        snapshot.payload.target_uris = ['https://aar.example/v1/runtime/authorize', 7, 'x'.repeat(300)];
      }
      break;
    }
    case 1:
      if (snapshot.payload) snapshot.payload.created = chance(0.9) ? NOW_SECONDS + int(-400, 400) : pick(ODD_VALUES);
      break;
    case 2: {
      const who = snapshot[pick(['principal', 'actor', 'instrument'])];
      if (who && typeof who === 'object') who.state = pick(STATES);
      break;
    }
    case 3:
      delete request[pick(['instrument_id', 'merchant_id', 'amount'])];
      break;
    case 4:
      request.action = pick(ACTIONS);
      if (chance(0.7)) {
        request.subject =
          request.action === 'execute' && chance(0.5)
            ? 'ns:capability:payment_action:card_purchase'
            : `ns:capability:purchase:${request.action}`;
      }
      break;
    case 5:
      request.amount = money();
      break;
    case 6:
      snapshot.grant_lookup = pick(['found', 'found', 'authority_not_found', 'capability_not_granted', 'maybe']);
      break;
    case 7:
      if (snapshot.merchant) {
        snapshot.merchant[pick(['category', 'jurisdiction', 'state'])] = pick([
          ...CATEGORIES,
          ...JURISDICTIONS,
          'suspended',
        ]);
      } else snapshot.merchant = { merchant_id: request.merchant_id, category: '5411', jurisdiction: 'DE', state: 'active' };
      break;
    case 8:
      if (snapshot.risk) snapshot.risk[pick(['actor', 'principal', 'instrument'])] = pick(['normal', 'elevated', 'blocked', 'unknown']);
      break;
    case 9:
      if (snapshot.approval) {
        const key = pick(['status', 'expires_at', 'bound']);
        if (key === 'status') snapshot.approval.status = pick(['pending', 'approved', 'rejected', 'expired', 'consumed', 'odd']);
        else if (key === 'expires_at') snapshot.approval.expires_at = instant();
        else if (snapshot.approval.bound) snapshot.approval.bound.amount = money();
      } else if (chance(0.5)) request.policy_decision_id = 'ns:decision:01963a4e-0000-7000-8000-000000000000';
      break;
    case 10:
      request.basket = { items: [{ sku: `sku-${int(1, 5)}`, qty: int(1, 3), note: pick(['', 'é', '\u2028', 'a"b']) }] };
      if (chance(0.3)) request.basket_hash = pick(['sha-256:abc', 'sha-256:' + 'A'.repeat(43)]);
      break;
    case 11:
      input.now = chance(0.9) ? iso(NOW_SECONDS + int(-330, 330), pick(['', '.25'])) : pick(['now', '2026-13-01T00:00:00Z']);
      break;
    case 12:
      if (grants.length > 0) mutateGrant(pick(grants), grants);
      break;
    case 13:
      if (grants.length > 1 && chance(0.5)) grants.reverse();
      else if (grants.length > 0) grants.splice(int(0, grants.length - 1), 1);
      break;
    case 14: {
      // further covering chains: copies of the first, each mutated (aar-decide/1.2.0)
      const alternatives: Json[] = [];
      for (let n = int(1, 3); n > 0; n--) {
        const copy: Json[] = structuredClone(grants);
        copy.forEach((g, i) => (g.grant_id = `${g.grant_id}-alt${n}-${i}`));
        copy.forEach((g, i) => (g.parent_grant_id = i === 0 ? null : copy[i - 1].grant_id));
        for (let m = int(0, 2); m > 0; m--) if (copy.length > 0) mutateGrant(pick(copy), copy);
        alternatives.push(chance(0.9) ? copy : pick(ODD_VALUES));
      }
      snapshot.alternatives = alternatives;
      break;
    }
    case 15: {
      // aar-decide/1.5.0 (issue 30): presented and attested agent metadata, equal, different, malformed or absent
      const field = (): Json => (chance(0.9) ? pick(MODELS) : pick(ODD_VALUES));
      const metadata = (): Json =>
        chance(0.9) ? { model: field(), software_version: pick(VERSIONS), operator: pick(OPERATORS) } : pick(ODD_VALUES);
      if (chance(0.7)) {
        const attested = metadata();
        snapshot.agent_metadata =
          attested && typeof attested === 'object' && !Array.isArray(attested)
            ? { attestation_id: 'ns:agent_metadata:01963a4f-0c00-7c00-8a00-000000000003', digest: 'sha-256:' + 'A'.repeat(43), ...attested, public_key_jwk: { kty: 'OKP', crv: 'Ed25519', x: 'A'.repeat(43) } }
            : attested;
      }
      if (chance(0.8)) {
        const attested = snapshot.agent_metadata;
        request.agent_metadata =
          chance(0.5) && attested && typeof attested === 'object' && !Array.isArray(attested)
            ? { model: attested.model, software_version: attested.software_version, operator: attested.operator }
            : metadata();
      }
      break;
    }
    default:
      if (grants.length > 0) mutateGrant(pick(grants), grants);
      if (grants.length > 0) mutateGrant(pick(grants), grants);
  }
}

const cases: Json[] = [];
for (let i = 0; i < count; i++) {
  const input = structuredClone(pick(bases));
  for (let m = int(1, 4); m > 0; m--) mutate(input);
  const result = decide(input.request, input.snapshot, input.now);
  cases.push({ input, want: JSON.parse(JSON.stringify(result)) });
}
writeFileSync(
  out,
  JSON.stringify({ desc: `decide on ${count} mutated decision vectors (seed ${SEED}), with core's results`, cases }) + '\n',
);
const tally: Record<string, number> = {};
for (const c of cases) tally[c.want.reason] = (tally[c.want.reason] ?? 0) + 1;
console.log(`${count} cases -> ${out}`);
console.log(tally);
