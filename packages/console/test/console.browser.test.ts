/**
 * The web console in a real browser (Debian Chromium) against `aar serve` on SQLite over a real socket, in a world the
 * test builds through the API (a principal, agents with keys, a three-link delegation chain, decisions, a pending
 * approval, a failing webhook endpoint). One page is reused throughout: navigation is by the console's own links, so
 * the token stays in memory exactly as it does for a user. Every page is checked at 1280 px and 390 px (no sideways
 * overflow, every control named) and photographed under .tmp/screenshots/.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDelegationWorld, PURCHASE, type DelegationWorld } from '../../server/test/support/delegation-world.ts';
import { inOneYear } from '../../server/test/support/fixtures.ts';
import { freePort, spawnServer, type ServerProcess } from '../../server/test/support/spawn-server.ts';
import {
  browserAvailable,
  checkPageAtBothWidths,
  launchBrowser,
  openPage,
  type WatchedPage,
} from './support/browser.ts';
import { buildConsole, type BuiltConsole } from './support/build-console.ts';

const ADMIN = 'console-browser-admin-token-0123456789';
const BASKET = {
  items: [
    { sku: 'olive-oil-1l', name: 'Olive oil, 1 l', qty: 3, unit_price: { amount: 10, currency: 'EUR' } },
    { sku: 'saffron-2g', name: 'Saffron, 2 g', qty: 4, unit_price: { amount: 15, currency: 'EUR' } },
  ],
};
/** more than one page of the console's lists (50) and of two */
const FLEET = 120;
const fleetAgent = (i: number) => `fleet-${String(i).padStart(3, '0')}`;

describe.runIf(browserAvailable)('web console in Chromium', () => {
  let built: BuiltConsole;
  let server: ServerProcess;
  let browser: Browser;
  let watched: WatchedPage;
  let page: Page;
  let w: DelegationWorld;
  let middleGrant: string;
  let approvalDecision: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'aar-console-'));

  beforeAll(async () => {
    built = await buildConsole();
    server = await spawnServer({
      AAR_DATA_DIR: dataDir,
      AAR_BOOTSTRAP_TOKEN: ADMIN,
      AAR_CONSOLE_DIR: built.dir,
      AAR_WEBHOOK_ALLOW_INSECURE: 'true',
    });
    w = await buildDelegationWorld(server.base, ADMIN);
    await w.must('POST', '/v1/merchants', {
      id: 'casino-1',
      display_name: 'Casino',
      category: '7995',
      jurisdiction: 'DE',
    });
    const middle = await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:planner', {
      max_amount_per_purchase: { amount: 60, currency: 'EUR' },
    });
    expect(middle.status, JSON.stringify(middle.body)).toBe(201);
    middleGrant = middle.body.grant_id;
    const leaf = await w.delegate(middleGrant, 'planner', 'ns:entity:agent:shopper-1', {
      max_amount_per_purchase: { amount: 40, currency: 'EUR' },
      allowed_jurisdictions: ['DE'],
    });
    expect(leaf.status, JSON.stringify(leaf.body)).toBe(201);
    const decide = async (agent: 'shopper-1' | 'concierge', amount: number, merchant = 'grocer-1') =>
      (await w.authorize(agent, w.purchase(agent, amount, merchant))).body;
    expect((await decide('shopper-1', 20)).reason).toBe('scope_within_attenuated_authority');
    expect((await decide('shopper-1', 25)).reason).toBe('scope_within_attenuated_authority');
    expect((await decide('shopper-1', 50)).reason).toBe('amount_above_agent_threshold');
    expect((await decide('shopper-1', 10, 'casino-1')).reason).toBe('merchant_category_blocked');
    const asked = (await w.authorize('concierge', w.purchase('concierge', 90, 'grocer-1', { basket: BASKET }))).body;
    expect(asked.decision).toBe('require_approval');
    approvalDecision = asked.policy_decision_id;
    // a receiver that is not listening: its deliveries fail, which the overview must show
    await w.must('POST', '/v1/webhook-endpoints', {
      url: `http://127.0.0.1:${await freePort()}/hooks/aar`,
      profile: 'shared_secret',
      description: 'Issuer fraud desk',
    });
    // more rows than one page holds: FLEET agents, each with a root grant from alice (as a conformance-kit run leaves)
    for (let i = 0; i < FLEET; i += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, FLEET - i) }, async (_, j) => {
          const name = fleetAgent(i + j);
          await w.must('POST', '/v1/entities', { type: 'agent', id: name, display_name: `Fleet agent ${i + j}` });
          await w.must('POST', '/v1/grants', {
            principal_entity_id: 'ns:entity:person:alice',
            actor_entity_id: `ns:entity:agent:${name}`,
            capability_id: PURCHASE,
            resource_id: 'ns:credential:card-token:tok-1',
            scope: {
              max_amount_per_purchase: { amount: 10, currency: 'EUR' },
              max_daily_amount: { amount: 20, currency: 'EUR' },
              valid_until: inOneYear(),
            },
          });
        }),
      );
    }
    browser = await launchBrowser();
    watched = await openPage(browser);
    page = watched.page;
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    built?.remove();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const nav = async (title: string) => {
    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: title }).click();
  };

  const signIn = async (token: string) => {
    await page.getByLabel('API token').fill(token);
    // the keyboard submits the form
    await page.getByLabel('API token').press('Enter');
    await page.getByTestId('signed-in-as').waitFor();
  };

  it('asks for a token, keeps it in memory only, and signs in with the keyboard', async () => {
    await page.goto(`${server.base}/console/`);
    await page.getByRole('heading', { name: 'Agent Authority Runtime console' }).waitFor();
    await checkPageAtBothWidths(page, 'console-sign-in');
    await signIn(ADMIN);
    await expect(page.getByTestId('signed-in-as').textContent()).resolves.toContain('admin');
    const stored = await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie]);
    expect(stored).toEqual([0, 0, '']);
    // a reload forgets the token: the sign-in form is back
    await page.reload();
    await page.getByLabel('API token').waitFor();
    await signIn(ADMIN);
  });

  it('overview: decisions over time and per reason, recent revocations, delivery health', async () => {
    await page.getByRole('heading', { name: 'Decisions per reason' }).waitFor();
    const reasons = page.getByRole('list', { name: 'Decisions per reason' });
    await expect(reasons.textContent()).resolves.toContain('merchant_category_blocked');
    await expect(reasons.textContent()).resolves.toContain('amount_above_approval_threshold');
    await expect(page.getByRole('heading', { name: /Decisions over time/ }).textContent()).resolves.toContain(
      '5 in all',
    );
    await page.getByText('endpoints delivering normally').waitFor();
    await expect(page.getByText('No grant has been revoked.').count()).resolves.toBe(1);
    await checkPageAtBothWidths(page, 'console-overview');
  });

  it('entities and card tokens', async () => {
    await nav('Entities and cards');
    await page.getByRole('heading', { name: 'Card tokens', exact: true }).waitFor();
    await page.getByText('ns:entity:agent:shopper-1').waitFor();
    await page.getByText('ns:card_token:tok-1').waitFor();
    await checkPageAtBothWidths(page, 'console-entities');
  });

  it('entities: a page at a time, next and previous, filtered by type with the filter in the URL', async () => {
    const rows = page.getByRole('table', { name: 'Entities' }).locator('tbody tr');
    // 2 people, 5 agents of the world, FLEET more agents: three pages of 50
    await expect.poll(() => rows.count()).toBe(50);
    const first = await rows.first().textContent();
    await page.getByRole('button', { name: 'Next page of entities' }).click();
    await expect.poll(() => rows.first().textContent()).not.toBe(first);
    // the next rows in creation order: 50 in, the fleet's 44th agent (after alice, bob and the world's 5 agents)
    await expect(rows.first().textContent()).resolves.toContain(`ns:entity:agent:${fleetAgent(43)}`);
    await page.getByRole('button', { name: 'Previous page of entities' }).click();
    await expect.poll(() => rows.first().textContent()).toBe(first);
    await page.getByLabel('Type').selectOption('person');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await page.evaluate(() => location.hash)).toBe('#/entities?type=person');
    await expect(page.getByRole('button', { name: 'Next page of entities' }).count()).resolves.toBe(0);
    await checkPageAtBothWidths(page, 'console-entities-filtered');
    await page.getByLabel('Type').selectOption('');
    await expect.poll(() => rows.count()).toBe(50);
  });

  it('grants: a delegation tree with narrowed limits per link; revoking a link cascades and the agent is denied', async () => {
    await nav('Grants');
    const trees = page.getByRole('list', { name: 'Delegation trees' });
    await trees.waitFor();
    const shopper = page.getByRole('article', { name: 'Grant to shopper-1' });
    // the leaf narrowed the per-purchase limit and the countries; it inherits the approval threshold
    await expect(shopper.textContent()).resolves.toMatch(/Per purchase40\.00 EUR \(narrowed here\)/);
    await expect(shopper.textContent()).resolves.toMatch(/CountriesDE \(narrowed here\)/);
    await expect(shopper.textContent()).resolves.toMatch(/Approval above80\.00 EUR(?! \(narrowed)/);
    // the root allows two levels below it: one is left under planner, none under shopper-1
    await expect(shopper.textContent()).resolves.toContain('Further delegationnot allowed');
    const planner = page.getByRole('article', { name: 'Grant to planner' });
    await expect(planner.textContent()).resolves.toContain('Further delegation1 more level');
    // nesting: shopper-1 sits in the list of what planner delegated, under concierge's
    await page
      .getByRole('list', { name: 'Delegated by planner' })
      .getByRole('article', { name: 'Grant to shopper-1' })
      .waitFor();
    await page.getByRole('button', { name: 'Revoke the grant to planner' }).click();
    const confirm = page.getByRole('group', { name: 'Confirm revoking the grant to planner' });
    await expect
      .poll(() => confirm.textContent())
      .toContain('This revokes 2 grants: this one and 1 active delegation below it');
    await checkPageAtBothWidths(page, 'console-grants-revoke');
    await confirm.getByRole('button', { name: 'Revoke 2 grants' }).click();
    await page.getByText(/Revoked 2 grants in \d+ ms/).waitFor();
    // the tree reloads: both links now read revoked
    await expect
      .poll(() => page.getByRole('article', { name: 'Grant to shopper-1' }).textContent())
      .toContain('revoked');
    // the agent's very next request is denied
    const next = await w.authorize('shopper-1', w.purchase('shopper-1', 20));
    expect(next.body).toMatchObject({ decision: 'deny', reason: 'authority_revoked' });
    // the root grant is untouched
    await expect(page.getByRole('button', { name: 'Revoke the grant to concierge' }).count()).resolves.toBe(1);
    await checkPageAtBothWidths(page, 'console-grants');
  });

  it('grants: a page of 50 at a time, the next page the next grants, filters that narrow and survive a reload', async () => {
    const cards = page.locator('article.grant-card');
    await expect.poll(() => cards.count()).toBe(50);
    // bounded: one kit run's grants once made this page 69,728 px tall
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    expect(height).toBeLessThan(16_000);
    // page 1: the world's 3 grants and the fleet's first 47; page 2 starts at the fleet's 48th
    await expect(cards.last().getAttribute('aria-label')).resolves.toBe(`Grant to ${fleetAgent(46)}`);
    await page.getByRole('button', { name: 'Next page of grants' }).click();
    await expect.poll(() => cards.first().getAttribute('aria-label')).toBe(`Grant to ${fleetAgent(47)}`);
    await expect(page.getByTestId('page-number').textContent()).resolves.toBe('Page 2');
    await expect.poll(() => cards.count()).toBe(50);
    await page.getByRole('button', { name: 'Next page of grants' }).click();
    // 123 grants: the third page holds the last 23, and there is no fourth
    await expect.poll(() => cards.count()).toBe(FLEET + 3 - 100);
    await expect(page.getByRole('button', { name: 'Next page of grants' }).isDisabled()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Previous page of grants' }).click();
    await expect.poll(() => cards.first().getAttribute('aria-label')).toBe(`Grant to ${fleetAgent(47)}`);
    // a filter narrows, starts at the first page, and is kept in the URL
    await page.getByLabel('State').selectOption('revoked');
    await expect.poll(() => cards.count()).toBe(2);
    await expect(page.getByTestId('page-number').count()).resolves.toBe(0);
    await page.getByLabel('Agent').fill(fleetAgent(99));
    await page.getByLabel('Agent').press('Enter');
    await page.getByText('No grant matches.').waitFor();
    await page.getByLabel('State').selectOption('');
    await expect.poll(() => cards.count()).toBe(1);
    await expect(cards.first().getAttribute('aria-label')).resolves.toBe(`Grant to ${fleetAgent(99)}`);
    expect(await page.evaluate(() => location.hash)).toBe(`#/grants?agent=${fleetAgent(99)}`);
    await checkPageAtBothWidths(page, 'console-grants-filtered');
    // a reload signs out (the token is in memory only) but keeps the page and its filter
    await page.reload();
    await signIn(ADMIN);
    await expect.poll(() => cards.count()).toBe(1);
    await expect(page.getByLabel('Agent').inputValue()).resolves.toBe(fleetAgent(99));
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => cards.count()).toBe(50);
  });

  it('decisions: searchable by reason and agent, each with its map drawn as the chain', async () => {
    await nav('Decisions');
    await page.getByLabel('Reason').selectOption('authority_revoked');
    await page.getByLabel('Agent').fill('shopper-1');
    await page.getByRole('button', { name: 'Search' }).click();
    const rows = page.locator('tr[data-decision-id]');
    await expect.poll(() => rows.count()).toBe(1);
    await checkPageAtBothWidths(page, 'console-decisions');
    await rows.first().getByRole('link').click();
    await expect(page.getByTestId('decision-reason').textContent()).resolves.toBe('authority_revoked');
    const chain = page.getByTestId('decision-chain');
    const nodes = await chain.locator('[data-node]').evaluateAll((els) => els.map((e) => e.getAttribute('data-node')));
    expect(nodes).toEqual(['principal', 'delegation', 'actor', 'capability', 'scope', 'state', 'policy', 'decision']);
    const delegation = chain.locator('[data-node="delegation"]');
    await expect(delegation.textContent()).resolves.toContain('3-link chain, revoked');
    await expect(delegation.textContent()).resolves.toContain('Stopped here');
    await checkPageAtBothWidths(page, 'console-decision-map');
  });

  it('evidence: the pack verifies in the browser against the JWKS, check by check; a tampered copy fails', async () => {
    await page.getByRole('link', { name: /^Verify ns:evidence-pack:/ }).click();
    const verification = page.getByTestId('verification');
    await verification.locator('[data-valid="true"]').first().waitFor({ timeout: 15_000 });
    const checks = await verification
      .locator('li[data-check]')
      .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-check')}=${e.getAttribute('data-valid')}`));
    expect(checks).toEqual([
      'pack_signature=true',
      'decision_map_signature=true',
      'bindings=true',
      'audit_entry=true',
      'record_digest=true',
      'inclusion_proof=true',
      'checkpoint=true',
      'replay=true',
    ]);
    await checkPageAtBothWidths(page, 'console-evidence-valid');
    // one cent more in the recorded request: the pack's signature no longer covers it
    const text = await page.getByLabel('Evidence pack (JSON)').inputValue();
    const pack = JSON.parse(text) as { request: { amount: { minor: number } } };
    pack.request.amount.minor += 1;
    await page.getByLabel('Evidence pack (JSON)').fill(JSON.stringify(pack, null, 2));
    await page.getByRole('button', { name: 'Verify this JSON' }).click();
    await verification.locator('h2 [data-valid="false"]').waitFor();
    await expect(verification.locator('li[data-check="pack_signature"]').getAttribute('data-valid')).resolves.toBe(
      'false',
    );
    await expect(verification.locator('li[data-check="pack_signature"]').textContent()).resolves.toContain(
      'signature_mismatch',
    );
    await expect(verification.locator('li[data-check="record_digest"]').getAttribute('data-valid')).resolves.toBe(
      'false',
    );
    await checkPageAtBothWidths(page, 'console-evidence-tampered');
  });

  it('audit chain: verified by the server, checkpoint signature and an inclusion proof checked in the browser', async () => {
    await nav('Audit chain');
    await expect(page.getByTestId('checkpoint-signature').textContent()).resolves.toContain('verified in this browser');
    await page.getByRole('button', { name: 'Verify the chain' }).click();
    await expect(page.getByTestId('chain-verification').textContent()).resolves.toMatch(/^Valid: \d+ entries checked/);
    await page.getByLabel(/Entry index/).fill('0');
    await page.getByRole('button', { name: 'Prove inclusion' }).click();
    await expect(page.getByTestId('inclusion-result').textContent()).resolves.toMatch(
      /^Entry 0 \(ns:audit:[0-9a-f-]+\) is in the log of \d+ entries under the signed root\.$/,
    );
    await checkPageAtBothWidths(page, 'console-audit');
  });

  it('webhooks: endpoints and their delivery attempts', async () => {
    await nav('Webhooks');
    await page.getByText('Issuer fraud desk').waitFor();
    await page.getByRole('button', { name: /^Show deliveries to http:\/\/127\.0\.0\.1:/ }).click();
    await page.getByRole('heading', { name: /^Deliveries to / }).waitFor();
    await checkPageAtBothWidths(page, 'console-webhooks');
    await page.getByLabel('Status').selectOption('succeeded');
    await page.getByText('No succeeded delivery.').waitFor();
    expect(await page.evaluate(() => location.hash)).toMatch(/^#\/webhooks\?endpoint=.+&status=succeeded$/);
  });

  it('connectors: the reference catalogue, filterable by family', async () => {
    await nav('Connectors');
    const heading = page.getByRole('heading', { name: /Reference catalogue/ });
    await heading.waitFor();
    const all = await heading.textContent();
    await page.getByLabel('Family').selectOption('payments');
    await expect.poll(() => heading.textContent()).not.toBe(all);
    expect(await page.evaluate(() => location.hash)).toBe('#/connectors?family=payments');
    await page.getByLabel('Status').selectOption('deprecated');
    await expect.poll(() => heading.textContent()).not.toBe(all);
    await checkPageAtBothWidths(page, 'console-connectors');
  });

  it('listings: signed listings with their trust score, each signature checked in the browser', async () => {
    await nav('Listings');
    const listings = page.getByRole('list', { name: 'Listings' });
    await listings.waitFor();
    const signatures = await page.getByTestId('listing-signature').allTextContents();
    expect(signatures.length).toBeGreaterThan(0);
    expect(new Set(signatures)).toEqual(new Set(['signature verified']));
    await page.getByLabel('Lowest trust score (0-100)').fill('100');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByTestId('listing-signature').count()).toBeLessThan(signatures.length);
    expect(await page.evaluate(() => location.hash)).toBe('#/listings?min=100');
    await checkPageAtBothWidths(page, 'console-listings');
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => page.getByTestId('listing-signature').count()).toBe(signatures.length);
    await page.getByLabel('Publisher tier').selectOption('certified');
    expect(await page.evaluate(() => location.hash)).toBe('#/listings?tier=certified');
  });

  it('approvals: the principal approves a pending one, and the agent retry is then allowed', async () => {
    await nav('Approvals');
    await page.getByText('Only the principal decides an approval').waitFor();
    // an admin sees the request but has no approve button
    await page.getByRole('article', { name: 'Approval for 90.00 EUR at grocer-1' }).waitFor();
    await expect(page.getByRole('button', { name: /^Approve/ }).count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(w.aliceToken);
    await expect(page.getByTestId('signed-in-as').textContent()).resolves.toContain('ns:entity:person:alice');
    await nav('Approvals');
    const card = page.getByRole('article', { name: 'Approval for 90.00 EUR at grocer-1' });
    const fact = (name: string) => card.locator(`[data-fact="${name}"]`).textContent();
    await expect(fact('action')).resolves.toBe('Purchase (execute)');
    await expect(fact('amount')).resolves.toBe('90.00 EUR');
    await expect(fact('merchant')).resolves.toBe('grocer-1');
    await expect(fact('principal')).resolves.toBe('alice');
    await expect(fact('agent')).resolves.toBe('concierge');
    const basket = await card.getByRole('list', { name: 'Basket' }).locator('li').allTextContents();
    expect(basket).toEqual([
      '3 × Olive oil, 1 l (olive-oil-1l) at 10.00 EUR',
      '4 × Saffron, 2 g (saffron-2g) at 15.00 EUR',
    ]);
    await checkPageAtBothWidths(page, 'console-approvals');
    await card.getByRole('button', { name: 'Approve 90.00 EUR at grocer-1' }).click();
    await page.getByText('No pending approval.').waitFor();
    const retry = await w.authorize(
      'concierge',
      w.purchase('concierge', 90, 'grocer-1', { policy_decision_id: approvalDecision, basket: BASKET }),
    );
    expect(retry.body).toMatchObject({ decision: 'allow_with_constraints', reason: 'approved_by_principal' });
  });

  it('logged no console error and threw no exception', () => {
    expect(watched.problems).toEqual([]);
  });
});
