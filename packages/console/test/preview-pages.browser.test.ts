/**
 * The v1.1 preview pages of the console in a real browser (Debian Chromium) against the service on SQLite over a real
 * socket (issue 30): the authority graph of a principal drawn with each link's effective limits, the blast radius
 * shown in the grant revoke confirmation (and a cancel that revokes nothing), and the reports page (a generated
 * report's figures, its download, and the messages when the capability is off or the token lacks `reports.read`).
 * Two services: one with `AAR_OPT_IN=reports`, one without. Each page is checked at 1280 px and 390 px.
 */
import { readFileSync } from 'node:fs';
import type { Browser, Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALICE,
  buildDelegationWorld,
  CARD,
  PURCHASE,
  type DelegationWorld,
} from '../../server/test/support/delegation-world.ts';
import { inOneYear } from '../../server/test/support/fixtures.ts';
import { mintToken, startOptInRuntime, type OptInRuntime } from '../../server/test/support/opt-in.ts';
import { ADMIN_TOKEN } from '../../server/test/support/test-runtime.ts';
import {
  browserAvailable,
  checkPageAtBothWidths,
  launchBrowser,
  openPage,
  type WatchedPage,
} from './support/browser.ts';
import { buildConsole, type BuiltConsole } from './support/build-console.ts';

describe.runIf(browserAvailable)('console preview pages in Chromium', () => {
  let built: BuiltConsole;
  let service: OptInRuntime;
  let plain: OptInRuntime;
  let browser: Browser;
  let watched: WatchedPage;
  let page: Page;
  let w: DelegationWorld;
  let plannerGrant: string;
  let shopperGrant: string;

  beforeAll(async () => {
    built = await buildConsole();
    // in-process services on real sockets (a spawned `aar serve` compiling its sources outlasts the start bound on
    // a busy machine): the same app, configuration and storage as `aar serve`, serving this build of the console
    service = await startOptInRuntime(['reports'], { config: { consoleDir: built.dir } });
    plain = await startOptInRuntime([], { config: { consoleDir: built.dir } });
    w = await buildDelegationWorld(service.base, ADMIN_TOKEN);
    await w.must('POST', '/v1/merchants', {
      id: 'casino-1',
      display_name: 'Casino',
      category: '7995',
      jurisdiction: 'DE',
    });
    const planner = await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:planner', {
      max_amount_per_purchase: { amount: 60, currency: 'EUR' },
      max_daily_amount: { amount: 150, currency: 'EUR' },
    });
    expect(planner.status, JSON.stringify(planner.body)).toBe(201);
    plannerGrant = planner.body.grant_id;
    const shopper = await w.delegate(plannerGrant, 'planner', 'ns:entity:agent:shopper-1', {
      max_amount_per_purchase: { amount: 40, currency: 'EUR' },
      allowed_jurisdictions: ['DE'],
    });
    expect(shopper.status, JSON.stringify(shopper.body)).toBe(201);
    shopperGrant = shopper.body.grant_id;
    const decide = async (amount: number, merchant = 'grocer-1') =>
      (await w.authorize('shopper-1', w.purchase('shopper-1', amount, merchant))).body;
    expect((await decide(20)).reason).toBe('scope_within_attenuated_authority');
    expect((await decide(25)).reason).toBe('scope_within_attenuated_authority');
    expect((await decide(50)).reason).toBe('amount_above_agent_threshold');
    expect((await decide(10, 'casino-1')).reason).toBe('merchant_category_blocked');
    expect((await decide(10, 'diner-1')).reason).toBe('jurisdiction_not_allowed');
    browser = await launchBrowser();
    watched = await openPage(browser);
    page = watched.page;
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await plain?.close();
    built?.remove();
  });

  const nav = async (title: string) => {
    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: title }).click();
  };

  const signIn = async (base: string, token: string) => {
    await page.goto(`${base}/console/`);
    await page.getByLabel('API token').fill(token);
    await page.getByLabel('API token').press('Enter');
    await page.getByTestId('signed-in-as').waitFor();
  };

  const link = (from: string, to: string) => page.getByRole('article', { name: `Link from ${from} to ${to}` });
  const limit = (from: string, to: string, key: string) =>
    link(from, to).locator(`dl[aria-label^="Effective limits"] dd[data-limit="${key}"]`).textContent();

  it("graph: a principal's delegation tree with the effective limits on each link", async () => {
    await signIn(service.base, ADMIN_TOKEN);
    await nav('Authority graph');
    await page.getByLabel('Principal').fill('alice');
    await page.getByLabel('Principal').press('Enter');
    await page.getByRole('list', { name: 'Delegation graph' }).waitFor();
    expect(await page.evaluate(() => location.hash)).toBe('#/graph?principal=alice');
    await expect(page.getByTestId('graph-principal').textContent()).resolves.toContain(ALICE);
    await expect(page.getByTestId('graph-summary').textContent()).resolves.toMatch(
      /^3 grants to 3 agents on this page/,
    );
    // the root link: alice's own limits
    await expect(limit('alice', 'concierge', 'max_amount_per_purchase')).resolves.toBe('100.00 EUR');
    await expect(limit('alice', 'concierge', 'requires_approval_above')).resolves.toBe('80.00 EUR');
    // the middle link narrows the amounts: 60 a purchase, 150 a day, 45 of it spent today by shopper-1 below it
    await expect(limit('concierge', 'planner', 'max_amount_per_purchase')).resolves.toBe('60.00 EUR');
    await expect(limit('concierge', 'planner', 'max_daily_amount')).resolves.toBe('150.00 EUR');
    // the leaf: its own 40 and DE, the approval threshold and the daily limit inherited through the chain
    await expect(limit('planner', 'shopper-1', 'max_amount_per_purchase')).resolves.toBe('40.00 EUR');
    await expect(limit('planner', 'shopper-1', 'allowed_jurisdictions')).resolves.toBe('DE');
    await expect(limit('planner', 'shopper-1', 'requires_approval_above')).resolves.toBe('80.00 EUR');
    await expect(limit('planner', 'shopper-1', 'max_daily_amount')).resolves.toBe('150.00 EUR');
    await expect(limit('planner', 'shopper-1', 'remaining_today')).resolves.toBe('105.00 EUR');
    await expect(limit('planner', 'shopper-1', 'max_purchase_now')).resolves.toBe('40.00 EUR');
    // nesting: shopper-1 is drawn in what planner delegated, which is in what concierge delegated
    await page
      .getByRole('list', { name: 'Delegated by concierge' })
      .getByRole('list', { name: 'Delegated by planner' })
      .getByRole('article', { name: 'Link from planner to shopper-1' })
      .waitFor();
    await expect(link('alice', 'concierge').textContent()).resolves.toContain('intermediary');
    await expect(link('planner', 'shopper-1').textContent()).resolves.toMatch(/shopper-1agent/);
    await checkPageAtBothWidths(page, 'console-graph');
  });

  it('graph: who can spend on the card and how much today, and what an agent may do', async () => {
    await link('planner', 'shopper-1').getByText('tok-1: who can spend on it').click();
    const spenders = link('planner', 'shopper-1').getByRole('list', { name: 'Who can spend on tok-1' });
    await expect
      .poll(() => spenders.locator('[data-spender="ns:entity:agent:shopper-1"]').textContent())
      .toContain('105.00 EUR left today, at most 40.00 EUR per purchase');
    await link('planner', 'shopper-1').getByText('What shopper-1 may do').click();
    const can = link('planner', 'shopper-1').getByRole('list', { name: 'What shopper-1 may do' });
    await expect.poll(() => can.textContent()).toContain('through alice → concierge → planner → shopper-1');
    await checkPageAtBothWidths(page, 'console-graph-queries');
  });

  it('grants: the revoke confirmation shows the blast radius, and cancelling revokes nothing', async () => {
    await nav('Grants');
    await page.getByRole('list', { name: 'Delegation trees' }).waitFor();
    await page.getByRole('button', { name: 'Revoke the grant to planner' }).click();
    const confirm = page.getByRole('group', { name: 'Confirm revoking the grant to planner' });
    const radius = confirm.getByTestId('blast-radius');
    await radius.waitFor();
    await expect(radius.textContent()).resolves.toContain(
      'Revoking it would cut 2 grants, 0 mandates, the authority of 2 agents and their spending on 1 card token.',
    );
    await expect(radius.locator('dd[data-cut="grants"]').textContent()).resolves.toContain(plannerGrant);
    await expect(radius.locator('dd[data-cut="grants"]').textContent()).resolves.toContain(shopperGrant);
    await expect(radius.locator('dd[data-cut="agents"]').textContent()).resolves.toBe('planner, shopper-1');
    await expect(radius.locator('dd[data-cut="card_tokens"]').textContent()).resolves.toBe('tok-1');
    await checkPageAtBothWidths(page, 'console-grants-blast-radius');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => confirm.count()).toBe(0);
    // nothing was revoked: both grants read active, and shopper-1 may still buy
    for (const id of [plannerGrant, shopperGrant]) {
      expect((await w.must('GET', `/v1/grants/${encodeURIComponent(id)}`)).state).toBe('active');
    }
    const next = await w.authorize('shopper-1', w.purchase('shopper-1', 10));
    expect(next.body).toMatchObject({ decision: 'allow_with_constraints' });
  });

  it('a principal: the blast radius of its own grant before revoking, and its own graph', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(service.base, w.aliceToken);
    await nav('Grants');
    await page.getByRole('button', { name: 'Revoke the grant to concierge' }).click();
    const radius = page
      .getByRole('group', { name: 'Confirm revoking the grant to concierge' })
      .getByTestId('blast-radius');
    await expect
      .poll(() => radius.textContent())
      .toContain('Revoking it would cut 3 grants, 0 mandates, the authority of 3 agents');
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect((await w.must('GET', `/v1/grants/${encodeURIComponent(w.root.grant_id)}`)).state).toBe('active');
    // a principal's graph is its own: no principal to name, its tree drawn at once
    await nav('Authority graph');
    await page.getByRole('list', { name: 'Delegation graph' }).waitFor();
    await expect(page.getByLabel('Principal').count()).resolves.toBe(0);
    await expect(page.getByTestId('graph-principal').textContent()).resolves.toContain(ALICE);
    await expect(limit('planner', 'shopper-1', 'max_purchase_now')).resolves.toBe('40.00 EUR');
    await page.getByRole('button', { name: 'Sign out' }).click();
  });

  /** The downloaded file's text, once the browser has written it. */
  const downloaded = async (click: () => Promise<void>): Promise<{ name: string; text: string }> => {
    const [download] = await Promise.all([page.waitForEvent('download'), click()]);
    const path = await (download as Download).path();
    return { name: (download as Download).suggestedFilename(), text: readFileSync(path, 'utf8') };
  };

  it("reports: a generated report's figures, its denials chart, its downloads, and a new schedule", async () => {
    // more to count: a second denial for the same reason, and a revoked grant
    const over = await w.authorize('shopper-1', w.purchase('shopper-1', 55));
    expect(over.body.reason).toBe('amount_above_agent_threshold');
    const extra = await w.must('POST', '/v1/grants', {
      principal_entity_id: ALICE,
      actor_entity_id: 'ns:entity:agent:helper',
      capability_id: PURCHASE,
      resource_id: CARD,
      scope: {
        max_amount_per_purchase: { amount: 5, currency: 'EUR' },
        max_daily_amount: { amount: 5, currency: 'EUR' },
        valid_until: inOneYear(),
      },
    });
    await w.must('POST', `/v1/grants/${encodeURIComponent(extra.grant_id)}/revoke`);
    const reporter = await mintToken(service.call, { role: 'admin', scopes: ['reports.read', 'reports.write'] });
    const to = new Date().toISOString();
    const from = new Date(Date.now() - 3600_000).toISOString();
    const made = await service.call('POST', '/v1/reports', { from, to, frameworks: ['soc2', 'eu_ai_act'] }, reporter);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const reportId: string = made.body.report_id;

    await signIn(service.base, reporter);
    await nav('Reports');
    const rows = page.locator('tr[data-report-id]');
    await expect.poll(() => rows.count()).toBe(1);
    await expect(rows.first().getAttribute('data-report-id')).resolves.toBe(reportId);
    await page.getByText('No schedule: reports are made only when asked for.').waitFor();
    await checkPageAtBothWidths(page, 'console-reports');
    await rows.first().getByRole('link').click();
    const figure = (list: string, key: string) =>
      page
        .getByRole('definition')
        .and(page.locator(`dl[aria-label="${list}"] dd[data-figure="${key}"]`))
        .textContent();
    // seven decisions in the hour: 20, 25 and 10 EUR allowed; 50 and 55 over shopper-1's limit, a casino, a diner
    const decisions = page.getByRole('heading', { name: /^Decisions: \d+ in all$/ });
    await decisions.waitFor();
    await expect(decisions.textContent()).resolves.toBe('Decisions: 7 in all');
    await expect(figure('Decisions by outcome', 'allow_with_constraints')).resolves.toBe('3');
    await expect(figure('Decisions by outcome', 'require_approval')).resolves.toBe('0');
    await expect(figure('Decisions by outcome', 'deny')).resolves.toBe('4');
    await expect(page.getByRole('list', { name: 'Amounts allowed' }).textContent()).resolves.toBe(
      '55.00 EUR over 3 decisions',
    );
    const denials = page.getByRole('list', { name: 'Denials by reason' });
    const reasons = await denials
      .locator('li[data-reason]')
      .evaluateAll((els) =>
        els.map((e) => `${e.getAttribute('data-reason')}=${e.querySelector('.reason-count')?.textContent}`),
      );
    expect(reasons).toEqual([
      'amount_above_agent_threshold=2',
      'jurisdiction_not_allowed=1',
      'merchant_category_blocked=1',
    ]);
    await expect(denials.textContent()).resolves.toContain("The amount is above the agent's per-purchase limit.");
    await expect(figure('Revocations', 'grants_revoked')).resolves.toBe('1');
    await expect(figure('Revocations', 'revoke_operations')).resolves.toBe('1');
    await expect(figure('Approvals', 'total')).resolves.toBe('0');
    const coverage = page.getByRole('table', { name: 'Control coverage per framework' });
    await expect(
      coverage.locator('tr[data-framework]').evaluateAll((els) => els.map((e) => e.getAttribute('data-framework'))),
    ).resolves.toEqual(['soc2', 'eu_ai_act']);
    await checkPageAtBothWidths(page, 'console-report');

    // the signed JSON as served, and one framework's OSCAL
    const json = await downloaded(() => page.getByRole('button', { name: 'Download JSON (signed)' }).click());
    expect(json.name).toBe(`${reportId.replace(/^ns:/, '').replace(/[^A-Za-z0-9._-]+/g, '-')}.json`);
    const fromApi = (await service.call('GET', `/v1/reports/${encodeURIComponent(reportId)}`, undefined, reporter))
      .body;
    expect(JSON.parse(json.text)).toEqual(fromApi);
    await page.locator('[data-framework-controls="soc2"] summary').click();
    const oscal = await downloaded(() => page.getByRole('button', { name: 'Download OSCAL (soc2)' }).click());
    expect(oscal.name).toMatch(/\.soc2\.oscal\.json$/);
    expect(Object.keys(JSON.parse(oscal.text) as object)).toEqual(['assessment-results']);

    // a schedule from the form; nothing more often than hourly is offered
    await nav('Reports');
    const every = page.getByLabel('Every');
    // the forms are drawn once the list has loaded
    await every.waitFor();
    expect(await every.locator('option').evaluateAll((els) => els.map((e) => (e as HTMLOptionElement).value))).toEqual([
      'hour',
      'day',
      'week',
      'month',
    ]);
    await every.selectOption('week');
    await page.getByLabel('Description').fill('weekly control report');
    await page.getByRole('group', { name: 'Frameworks' }).first().getByLabel('dora').check();
    await page.getByRole('button', { name: 'Create the schedule' }).click();
    const schedules = page.getByRole('table', { name: 'Report schedules' });
    await expect.poll(() => schedules.locator('tbody tr').count()).toBe(1);
    await expect(schedules.textContent()).resolves.toContain('week (from Monday)weekly control reportdora');
    await checkPageAtBothWidths(page, 'console-report-schedules');
    await page.getByRole('button', { name: 'Sign out' }).click();
  });

  it('reports: a token without reports.read is told it lacks the scope', async () => {
    await signIn(service.base, ADMIN_TOKEN);
    await nav('Reports');
    const notice = page.getByTestId('scope-missing');
    await notice.waitFor();
    await expect(notice.textContent()).resolves.toContain('not granted the reports.read scope');
    await checkPageAtBothWidths(page, 'console-reports-scope-missing');
    await page.getByRole('button', { name: 'Sign out' }).click();
  });

  it('reports: a deployment without the capability says it is off', async () => {
    await signIn(plain.base, ADMIN_TOKEN);
    await nav('Reports');
    const notice = page.getByTestId('capability-off');
    await notice.waitFor();
    await expect(notice.textContent()).resolves.toContain('Compliance reports are not enabled on this deployment.');
    await expect(notice.textContent()).resolves.toContain('AAR_OPT_IN=reports');
    // nothing else of the page is drawn: no list, no forms
    await expect(page.getByRole('button', { name: 'Create the schedule' }).count()).resolves.toBe(0);
    await checkPageAtBothWidths(page, 'console-reports-off');
  });

  it('logged no console error and threw no exception, beyond the two refusals the browser reports', () => {
    // Chromium logs every 4xx answer as a failed resource: the scope-missing and capability-off pages each read one
    const refused = 'console.error: Failed to load resource: the server responded with a status of 403 (Forbidden)';
    expect(watched.problems.filter((p) => p !== refused)).toEqual([]);
    expect(watched.problems.filter((p) => p === refused)).toHaveLength(2);
  });
});
