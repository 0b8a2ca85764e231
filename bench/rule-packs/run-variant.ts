/**
 * One variant of the rule-packs benchmark on a fresh `aar serve` (embedded SQLite, child process): the world of
 * authorize-http (one person, agent, card token, grant, grocer) whose purchases carry a grocery basket, the variant's
 * five packs drafted and published through the API, a probe proving the packs are enforced (a basket with a weapon is
 * allowed with no pack active and denied by pack 1's own reason with it), a warm-up, then the alternating rounds.
 */
import { buildWorld, type BenchWorld } from '../authorize-http/build-world.ts';
import { createRequestFeed, signRequestPool } from '../authorize-http/request-pool.ts';
import { runLoad } from '../authorize-http/run-load.ts';
import { startAarServer, type AarServer } from '../authorize-http/start-servers.ts';
import { BENCH_BASKET, PACKS_PER_VARIANT, WEAPON, benchPack, packName, type RuleVariant } from './bench-packs.ts';
import { measureRound, type RoundResult, type RoundShape } from './measure-round.ts';
import { publishPack } from './policy-api.ts';
import { createRuleSwitch, type RuleCount } from './rule-switch.ts';

export interface VariantOptions {
  schedule: readonly RuleCount[];
  round: RoundShape;
  /** untimed closed-loop requests after each switch (caches refill at the new grant version) */
  settleRequests: number;
  /** untimed requests before the first round, shared by the rule counts the rounds use */
  warmupRequests: number;
}

export interface VariantRuns {
  variant: RuleVariant;
  rounds: { rules: RuleCount; run: RoundResult }[];
  /** UTF-8 bytes of each published pack's draft document */
  packBytes: number[];
  probe: { without: string; with: string };
}

export async function runVariant(variant: RuleVariant, options: VariantOptions): Promise<VariantRuns> {
  const aar = await startAarServer();
  try {
    const world = await buildWorld(aar.base, aar.adminToken);
    for (const agent of world.agents) agent.body = { ...agent.body, basket: BENCH_BASKET };
    const api = { base: aar.base, adminToken: aar.adminToken };
    const now = new Date();
    const packBytes: number[] = [];
    for (let i = 1; i <= PACKS_PER_VARIANT; i++) {
      const doc = benchPack(variant, i, now);
      packBytes.push(Buffer.byteLength(JSON.stringify(doc)));
      await publishPack(api, doc);
    }
    const rules = createRuleSwitch(api, variant);
    const probe = { without: await probeWeapon(aar, world), with: '' };
    await rules.set(10);
    probe.with = await probeWeapon(aar, world);
    if (probe.without !== 'allow_with_constraints' || probe.with !== `deny/${packName(variant, 1)}.basket_restricted`) {
      throw new Error(`${variant}: the probe answered ${probe.without} without packs and ${probe.with} with pack 1`);
    }

    const round = (rulesCount: RuleCount, label: string, shape: RoundShape) =>
      measureRound(aar, world, label, shape, {
        packs: rulesCount / 10,
        counters: variant === 'facts' && rulesCount > 0,
        localTime: variant === 'facts' && rulesCount > 0,
      });
    const untimed = (n: number): RoundShape => ({ ...options.round, amount: n, maxSeconds: 30 });
    // every count the rounds use, most rules first (the JIT sees each path before the clock starts)
    const counts = ([50, 10, 0] as const).filter((count) => options.schedule.includes(count));
    for (const count of counts) {
      await rules.set(count);
      await round(
        count,
        `${variant} warm-up, ${count} rules`,
        untimed(Math.ceil(options.warmupRequests / counts.length)),
      );
    }
    const rounds: VariantRuns['rounds'] = [];
    for (const [k, count] of options.schedule.entries()) {
      if (rules.rules !== count) {
        await rules.set(count);
        await settle(aar, world, { ...options.round, amount: options.settleRequests, maxSeconds: 30 });
      }
      rounds.push({
        rules: count,
        run: await round(count, `${variant} round ${k + 1}, ${count} rules`, options.round),
      });
    }
    return { variant, rounds, packBytes, probe };
  } finally {
    await aar.stop();
  }
}

/**
 * Untimed requests after a switch, unchecked: bounded by count only, so every one is answered (decided) before this
 * returns, and the next round's checks see none of them; the round after it checks the same set-up.
 */
async function settle(aar: AarServer, world: BenchWorld, shape: RoundShape): Promise<void> {
  const feed = createRequestFeed(await signRequestPool(world, shape.amount), 'once');
  const result = await runLoad({ base: aar.base, feed, ...shape });
  if (result.ok !== shape.amount) throw new Error(`settle: ${result.ok} of ${shape.amount} answered 2xx`);
}

/** One purchase whose basket holds a weapon: `decision` or `decision/reason`. */
async function probeWeapon(aar: AarServer, world: BenchWorld): Promise<string> {
  const basket = { items: [...BENCH_BASKET.items, WEAPON] };
  const armed = { ...world, agents: world.agents.map((a) => ({ ...a, body: { ...a.body, basket } })) };
  const [request] = await signRequestPool(armed, 1);
  const res = await fetch(`${aar.base}${request!.path}`, {
    method: 'POST',
    headers: request!.headers,
    body: request!.body,
  });
  const body = (await res.json()) as { decision?: string; reason?: string };
  if (res.status !== 200) throw new Error(`the probe answered ${res.status}: ${JSON.stringify(body)}`);
  return body.decision === 'allow_with_constraints' ? body.decision : `${body.decision}/${body.reason}`;
}
