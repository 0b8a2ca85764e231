/**
 * Writes vectors/delegation/*.json: `npx tsx packages/core/test/delegation/write-vectors.ts`. Each vector is a chain
 * built from fixed keys, mutated the way an attacker or a bug would, with the problems it must raise written here by
 * hand (from CONTRACT section 5), not taken from the verifier's output. The output is deterministic: re-running the
 * writer leaves the files unchanged unless a case changed.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { signDocument, type GrantLink, type WireGrantScope } from '../../src/index.ts';
import {
  CONCIERGE_KEY,
  IDS,
  JWKS,
  LEAF_SCOPE,
  makeChain,
  makeLink,
  MALLORY_KEY,
  MIDDLE_SCOPE,
  NOW,
  OTHER_SERVICE_KEY,
  PLANNER_KEY,
  ROOT_SCOPE,
  SERVICE_KEY,
  validLinks,
  type ChainOptions,
} from './chain-builder.ts';

const OUT = fileURLToPath(new URL('../../../../vectors/delegation/', import.meta.url));

interface WantProblem {
  code: string;
  index: number | null;
  field?: string;
}

interface Case {
  file: string;
  desc: string;
  chain: unknown;
  now?: string;
  want: { valid: boolean; problems: WantProblem[] };
}

const ok = { valid: true, problems: [] };
const fails = (...problems: WantProblem[]) => ({ valid: false, problems });

/** The middle link rebuilt (and re-signed by the service) with `change` applied; its delegator consents to it. */
async function middleWith(root: GrantLink, scope: WireGrantScope, extra: Partial<Parameters<typeof makeLink>[0]> = {}) {
  return makeLink({
    grant_id: IDS.middle,
    parent: root,
    actor: 'ns:entity:agent:planner',
    scope,
    issued_at: '2026-04-01T09:05:00.000Z',
    delegatorKey: CONCIERGE_KEY,
    ...extra,
  });
}

async function leafUnder(middle: GrantLink, scope: WireGrantScope = LEAF_SCOPE, actor = 'ns:entity:agent:shopper-1') {
  return makeLink({
    grant_id: IDS.leaf,
    parent: middle,
    actor,
    scope,
    issued_at: '2026-04-01T09:10:00.000Z',
    delegatorKey: PLANNER_KEY,
  });
}

async function widened(field: string, scope: WireGrantScope, path: string, desc: string): Promise<Case> {
  const [root] = await validLinks();
  const middle = await middleWith(root, scope);
  return {
    file: `fail-widened-${field}.json`,
    desc,
    chain: await makeChain([root, middle, await leafUnder(middle)]),
    want: fails({ code: 'scope_wider', index: 1, field: path }),
  };
}

function flipChar(text: string, at: number): string {
  const c = text[at] === 'A' ? 'B' : 'A';
  return text.slice(0, at) + c + text.slice(at + 1);
}

async function cases(): Promise<Case[]> {
  const [root, middle, leaf] = await validLinks();
  const chain = (links: GrantLink[], options?: ChainOptions) => makeChain(links, options);
  const out: Case[] = [
    {
      file: 'valid-three-link-chain.json',
      desc: 'holder -> concierge -> planner -> shopper-1; each child narrower and signed by its delegator',
      chain: await chain([root, middle, leaf]),
      want: ok,
    },
    {
      file: 'valid-root-only.json',
      desc: 'a direct grant is a one-link chain',
      chain: await chain([root]),
      want: ok,
    },
    {
      file: 'valid-unsigned-document.json',
      desc: 'a chain assembled from signed links without the outer signature: links verify, states are not judged',
      chain: await chain([root, middle, leaf], { unsigned: true, states: ['active', 'revoked', 'revoked'] }),
      want: ok,
    },
    {
      file: 'valid-delegators-without-keys.json',
      desc: 'delegators with no registered key: the links carry no statement, the service signature suffices',
      chain: await (async () => {
        const m = await middleWith(root, MIDDLE_SCOPE, { delegatorKey: undefined });
        const l = await makeLink({
          grant_id: IDS.leaf,
          parent: m,
          actor: 'ns:entity:agent:shopper-1',
          scope: LEAF_SCOPE,
          issued_at: '2026-04-01T09:10:00.000Z',
        });
        return chain([root, m, l], { delegatorKeys: [] });
      })(),
      want: ok,
    },
    {
      file: 'fail-reordered-links.json',
      desc: 'the same three links, middle first: not a root, wrong parents and depths',
      chain: { ...(await chain([root, middle, leaf], { unsigned: true })), links: [middle, root, leaf] },
      want: fails(
        { code: 'not_a_root', index: 0, field: '/parent_grant_id' },
        { code: 'wrong_parent', index: 1, field: '/parent_grant_id' },
        { code: 'wrong_parent', index: 2, field: '/parent_grant_id' },
      ),
    },
    {
      file: 'fail-cut-below-root.json',
      desc: 'the root link is missing: the chain starts at a delegated grant',
      chain: await chain([middle, leaf]),
      want: fails({ code: 'not_a_root', index: 0, field: '/parent_grant_id' }, { code: 'wrong_depth', index: 0 }),
    },
    {
      file: 'fail-parent-signature-over-another-child.json',
      desc: "the concierge's valid signature, made for a delegation to another agent, attached to the planner's link",
      chain: await (async () => {
        const m = await middleWith(root, MIDDLE_SCOPE, {
          statementRequest: {
            parent_grant_id: IDS.root,
            actor_entity_id: 'ns:entity:agent:other',
            scope: MIDDLE_SCOPE,
          },
        });
        return chain([root, m, await leafUnder(m)]);
      })(),
      want: fails({ code: 'statement_mismatch', index: 1, field: '/delegation/statement/request/actor_entity_id' }),
    },
    {
      file: 'fail-parent-signature-over-narrower-scope.json',
      desc: 'the delegator signed a 40 EUR limit; the link says 50 EUR',
      chain: await (async () => {
        const signed = { ...MIDDLE_SCOPE, max_amount_per_purchase: { amount: 40, currency: 'EUR' } };
        const m = await middleWith(root, MIDDLE_SCOPE, {
          statementRequest: { parent_grant_id: IDS.root, actor_entity_id: 'ns:entity:agent:planner', scope: signed },
        });
        return chain([root, m, await leafUnder(m)]);
      })(),
      want: fails({
        code: 'statement_mismatch',
        index: 1,
        field: '/delegation/statement/request/scope/max_amount_per_purchase',
      }),
    },
    {
      file: 'fail-statement-for-another-parent.json',
      desc: "the planner's consent names another parent grant (a sibling's)",
      chain: await (async () => {
        const l = await makeLink({
          grant_id: IDS.leaf,
          parent: middle,
          actor: 'ns:entity:agent:shopper-1',
          scope: LEAF_SCOPE,
          issued_at: '2026-04-01T09:10:00.000Z',
          delegatorKey: PLANNER_KEY,
          statementRequest: {
            parent_grant_id: IDS.sibling,
            actor_entity_id: 'ns:entity:agent:shopper-1',
            scope: LEAF_SCOPE,
          },
        });
        return chain([root, middle, l]);
      })(),
      want: fails({ code: 'statement_mismatch', index: 2, field: '/delegation/statement/request/parent_grant_id' }),
    },
    {
      file: 'fail-delegator-signature-by-another-key.json',
      desc: "the statement is signed by a key with the planner's id that is not the planner's registered key",
      chain: await (async () => {
        const l = await leafUnder(middle);
        const forged = await signDocument(
          { ...l.delegation!.statement, signature: undefined } as unknown as object,
          MALLORY_KEY.signer,
        );
        const relinked = await signDocument(
          { ...l, delegation: { ...l.delegation!, statement: forged } },
          SERVICE_KEY.signer,
        );
        return chain([root, middle, relinked as GrantLink]);
      })(),
      want: fails({ code: 'delegator_signature_invalid', index: 2, field: '/delegation/statement/signature' }),
    },
    {
      file: 'fail-delegator-key-differs-from-listed.json',
      desc: 'the chain lists another key for the planner than the one the service attested in the link',
      chain: await chain([root, middle, leaf], { delegatorKeys: [CONCIERGE_KEY.jwk, MALLORY_KEY.jwk] }),
      want: fails({ code: 'delegator_key_mismatch', index: 2, field: '/delegation/delegator_key' }),
    },
    {
      file: 'fail-link-signature-flipped.json',
      desc: "one character of the middle link's service signature changed",
      chain: await (async () => {
        const doc = await chain([root, middle, leaf]);
        const sig = middle.signature.signature;
        const tampered = { ...middle, signature: { ...middle.signature, signature: flipChar(sig, 10) } };
        return { ...doc, links: [root, tampered, leaf] };
      })(),
      want: fails(
        { code: 'link_signature_invalid', index: 1, field: '/signature' },
        { code: 'document_signature_invalid', index: null, field: '/signature' },
      ),
    },
    {
      file: 'fail-link-content-edited.json',
      desc: "the middle link's per-purchase limit edited from 50 to 500 EUR after signing",
      chain: await (async () => {
        const doc = await chain([root, middle, leaf], { unsigned: true });
        const edited = {
          ...middle,
          scope: { ...middle.scope, max_amount_per_purchase: { amount: 500, currency: 'EUR' } },
        };
        return { ...doc, links: [root, edited, leaf] };
      })(),
      want: fails(
        { code: 'link_signature_invalid', index: 1, field: '/signature' },
        { code: 'scope_wider', index: 1, field: '/scope/max_amount_per_purchase' },
      ),
    },
    {
      file: 'fail-unknown-service-key.json',
      desc: 'links signed by a key the trusted JWKS does not hold',
      chain: await (async () => {
        const r = await makeLink(
          {
            grant_id: IDS.root,
            actor: 'ns:entity:agent:concierge',
            scope: ROOT_SCOPE,
            issued_at: '2026-04-01T09:00:00.000Z',
          },
          OTHER_SERVICE_KEY,
        );
        return chain([r], { unsigned: true });
      })(),
      want: fails({ code: 'link_signature_invalid', index: 0, field: '/signature' }),
    },
    await widened(
      'max-amount-per-purchase',
      { ...MIDDLE_SCOPE, max_amount_per_purchase: { amount: 100.01, currency: 'EUR' } },
      '/scope/max_amount_per_purchase',
      'the child allows 100.01 EUR per purchase, the parent 100.00',
    ),
    await widened(
      'max-daily-amount',
      { ...MIDDLE_SCOPE, max_daily_amount: { amount: 301, currency: 'EUR' } },
      '/scope/max_daily_amount',
      'the child allows 301 EUR a day, the parent 300',
    ),
    await widened(
      'requires-approval-above',
      { ...MIDDLE_SCOPE, requires_approval_above: { amount: 90, currency: 'EUR' } },
      '/scope/requires_approval_above',
      'the child asks for approval above 90 EUR, the parent above 80',
    ),
    await widened(
      'currency',
      { ...MIDDLE_SCOPE, max_amount_per_purchase: { amount: 50, currency: 'USD' } },
      '/scope/max_amount_per_purchase/currency',
      "the child's limit is in USD, the parent's in EUR: never converted, refused",
    ),
    await widened(
      'valid-until',
      { ...MIDDLE_SCOPE, valid_until: '2027-01-01T00:00:00.000Z' },
      '/scope/valid_until',
      'the child outlives its parent',
    ),
    await widened(
      'allowed-merchant-categories',
      { ...MIDDLE_SCOPE, allowed_merchant_categories: ['5411', '7995'] },
      '/scope/allowed_merchant_categories',
      'the child allows a category the parent does not',
    ),
    await widened(
      'blocked-merchant-categories',
      { ...MIDDLE_SCOPE, blocked_merchant_categories: [] },
      '/scope/blocked_merchant_categories',
      'the child unblocks what the parent blocks',
    ),
    await widened(
      'allowed-jurisdictions',
      { ...MIDDLE_SCOPE, allowed_jurisdictions: ['DE', 'US'] },
      '/scope/allowed_jurisdictions',
      'the child allows a jurisdiction the parent does not',
    ),
    await widened(
      'jurisdiction-case-variant',
      { ...MIDDLE_SCOPE, allowed_jurisdictions: ['de'] },
      '/scope/allowed_jurisdictions',
      '`de` is not `DE`: codes compare exactly, a case variant is a different (and here unknown) value',
    ),
    await widened(
      'allowed-actions',
      { ...MIDDLE_SCOPE, allowed_actions: ['purchase.execute', 'purchase.refund_request'] },
      '/scope/allowed_actions',
      'the child allows refunds, the parent does not',
    ),
    await widened(
      'max-delegation-depth',
      { ...MIDDLE_SCOPE, max_delegation_depth: 2 },
      '/scope/max_delegation_depth',
      'the child allows two more levels; its parent leaves one',
    ),
    {
      file: 'fail-widened-capability.json',
      desc: 'the parent holds purchase:search only; the child claims the whole purchase capability',
      chain: await (async () => {
        const r = await makeLink({
          grant_id: IDS.root,
          actor: 'ns:entity:agent:concierge',
          scope: ROOT_SCOPE,
          issued_at: '2026-04-01T09:00:00.000Z',
          capability: 'ns:capability:purchase:search',
        });
        const m = await middleWith(r, MIDDLE_SCOPE, {
          capability: 'ns:capability:payment_action:card_purchase',
          statementRequest: {
            parent_grant_id: IDS.root,
            actor_entity_id: 'ns:entity:agent:planner',
            capability_id: 'ns:capability:payment_action:card_purchase',
            scope: MIDDLE_SCOPE,
          },
        });
        return chain([r, m]);
      })(),
      want: fails({ code: 'capability_wider', index: 1, field: '/capability_id' }),
    },
    {
      file: 'fail-expired-link.json',
      desc: 'at 2026-10-01 the middle link (valid until 2026-09-30) has expired; the leaf inherits its expiry',
      chain: await chain([root, middle, leaf]),
      now: '2026-10-01T00:00:00Z',
      want: fails({ code: 'expired', index: 1, field: '/scope/valid_until' }),
    },
    {
      file: 'fail-revoked-middle.json',
      desc: 'the signed document attests that the middle link and its child were revoked',
      chain: await chain([root, middle, leaf], { states: ['active', 'revoked', 'revoked'] }),
      want: fails({ code: 'revoked', index: 1 }, { code: 'revoked', index: 2 }),
    },
    {
      file: 'fail-too-deep.json',
      desc: 'the root allows one level of delegation below it; the leaf is the second',
      chain: await (async () => {
        const r = await makeLink({
          grant_id: IDS.root,
          actor: 'ns:entity:agent:concierge',
          scope: { ...ROOT_SCOPE, max_delegation_depth: 1 },
          issued_at: '2026-04-01T09:00:00.000Z',
        });
        const m = await middleWith(r, { ...MIDDLE_SCOPE, may_delegate: true });
        return chain([r, m, await leafUnder(m)]);
      })(),
      want: fails({ code: 'too_deep', index: 2, field: '/depth' }),
    },
    {
      file: 'fail-not-delegable.json',
      desc: 'the middle link says may_delegate: false, yet has a child',
      chain: await (async () => {
        const m = await middleWith(root, { ...MIDDLE_SCOPE, may_delegate: false });
        return chain([root, m, await leafUnder(m)]);
      })(),
      want: fails({ code: 'not_delegable', index: 2, field: '/parent_grant_id' }),
    },
    {
      file: 'fail-entity-cycle.json',
      desc: 'the planner delegates back to the concierge, who already holds the root grant',
      chain: await (async () =>
        chain([root, middle, await leafUnder(middle, LEAF_SCOPE, 'ns:entity:agent:concierge')]))(),
      want: fails({ code: 'entity_cycle', index: 2, field: '/actor_entity_id' }),
    },
    {
      file: 'fail-repeated-link.json',
      desc: 'the middle link twice: a loop',
      chain: await chain([root, middle, middle]),
      want: fails({ code: 'repeated_link', index: 2, field: '/grant_id' }, { code: 'wrong_parent', index: 2 }),
    },
    {
      file: 'fail-spliced-from-another-branch.json',
      desc: "a leaf of a sibling branch (its parent is another grant) put under this chain's middle link",
      chain: await (async () => {
        const sibling = await middleWith(root, MIDDLE_SCOPE, { grant_id: IDS.sibling });
        return chain([root, middle, await leafUnder(sibling)]);
      })(),
      want: fails({ code: 'wrong_parent', index: 2, field: '/parent_grant_id' }),
    },
    {
      file: 'fail-issued-before-parent.json',
      desc: 'the leaf was issued before its parent existed',
      chain: await (async () => {
        const l = await makeLink({
          grant_id: IDS.leaf,
          parent: middle,
          actor: 'ns:entity:agent:shopper-1',
          scope: LEAF_SCOPE,
          issued_at: '2026-04-01T09:04:00.000Z',
          delegatorKey: PLANNER_KEY,
        });
        return chain([root, middle, l]);
      })(),
      want: fails({ code: 'issued_before_parent', index: 2, field: '/issued_at' }),
    },
    {
      file: 'fail-delegator-not-parent-actor.json',
      desc: 'the link names a delegator that is not the actor of its parent',
      chain: await (async () => {
        const tampered = await signDocument(
          { ...middle, delegator_entity_id: 'ns:entity:agent:mallory' },
          SERVICE_KEY.signer,
        );
        return chain([root, tampered as GrantLink, leaf]);
      })(),
      want: fails({ code: 'delegator_mismatch', index: 1, field: '/delegator_entity_id' }),
    },
    {
      file: 'fail-leaf-mismatch.json',
      desc: 'the document says it ends at the middle grant but carries three links',
      chain: await (async () => {
        const doc = await chain([root, middle, leaf], { unsigned: true });
        return signDocument({ ...doc, leaf_grant_id: IDS.middle }, SERVICE_KEY.signer);
      })(),
      want: fails({ code: 'leaf_mismatch', index: null, field: '/leaf_grant_id' }),
    },
  ];
  return out;
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  for (const file of readdirSync(OUT)) if (file.endsWith('.json')) rmSync(OUT + file);
  for (const c of await cases()) {
    const vector = { desc: c.desc, input: { chain: c.chain, jwks: JWKS, now: c.now ?? NOW }, want: c.want };
    writeFileSync(OUT + c.file, `${JSON.stringify(vector, null, 2)}\n`);
  }
  console.log(`wrote ${(await cases()).length} vectors to ${OUT}`);
}

await main();
