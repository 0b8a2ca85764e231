/**
 * The lifecycle's concurrency claims across a scaled deployment: two `aar serve` processes on one PostgreSQL.
 * - Ten executes of one verified artefact at once, half to each process: exactly one moves it to `executed` and
 *   settles its decision once; nine are 422 `artefact_not_executable` (`artefact_executed`), each with its
 *   `execution_refused` event.
 * - Ten artefacts presented at once against one decision, half to each process: exactly one is `verified`, the
 *   others `rejected` with `decision_has_artefact` (the unique `verified_for` and the retried unit).
 * PostgreSQL only (SQLite is one writer in one process).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.ts';
import { testDialects } from '../support/dialects.ts';
import { startPgCluster, type PgCluster } from '../support/pg-cluster.ts';
import { ADMIN_TOKEN } from '../support/test-runtime.ts';
import { buildArtefactWorld, digestOf, signStatement, AGENT, type ArtefactWorld } from './support/artefact-world.ts';

const dialects = await testDialects();

describe.runIf(dialects.includes('postgres'))('payload artefacts across two processes on postgres', () => {
  let cluster: PgCluster | undefined;
  let store: Store | undefined;
  let w: ArtefactWorld;

  beforeAll(async () => {
    cluster = await startPgCluster(2, ADMIN_TOKEN);
    store = openStore({ databaseUrl: cluster.databaseUrl, poolSize: 2 });
    w = await buildArtefactWorld(cluster.servers[0]!.base, ADMIN_TOKEN);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    await cluster?.stop();
  });

  const post = async (base: string, path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${w.runtimeToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const count = async (subject: string, type: string) =>
    Number(
      (
        await store!.db
          .selectFrom('events')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('subject_ref', '=', subject)
          .where('event_type', '=', type)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('lets exactly one of ten executes on two processes win', async () => {
    const decisionId = await w.allowed(9);
    const { body: doc } = await w.present({ policy_decision_id: decisionId });
    expect(doc.state).toBe('verified');
    const bases = cluster!.servers.map((s) => s.base);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post(bases[i % 2]!, `/v1/payload-artefacts/${doc.payload_artefact_id}/execute`, { outcome: 'executed' }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array<number>(9).fill(422)]);
    for (const a of answers.filter((x) => x.status === 422)) expect(a.body.refusal).toBe('artefact_executed');
    expect(await count(doc.payload_artefact_id, 'ns.payload_artefact.executed')).toBe(1);
    expect(await count(doc.payload_artefact_id, 'ns.payload_artefact.execution_refused')).toBe(9);
    expect(await count(decisionId, 'ns.purchase_authority.executed')).toBe(1);
    const decision = await store!.db
      .selectFrom('decisions')
      .select('outcome')
      .where('policy_decision_id', '=', decisionId)
      .executeTakeFirstOrThrow();
    expect(decision.outcome).toBe('executed');
  });

  it('verifies exactly one of ten artefacts presented at once against one decision', async () => {
    const decisionId = await w.allowed(8);
    const bases = cluster!.servers.map((s) => s.base);
    const bodies = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const digest = digestOf(`payload ${i}`);
        const fields = { kind: 'checkout', digest, policy_decision_id: decisionId };
        return { ...fields, signature: await signStatement(w.privateJwk, AGENT, fields) };
      }),
    );
    const answers = await Promise.all(bodies.map((b, i) => post(bases[i % 2]!, '/v1/payload-artefacts', b)));
    expect(answers.map((a) => a.status)).toEqual(Array<number>(10).fill(201));
    const verified = answers.filter((a) => a.body.state === 'verified');
    expect(verified).toHaveLength(1);
    expect(answers.filter((a) => a.body.reason === 'decision_has_artefact')).toHaveLength(9);
    const live = await store!.db
      .selectFrom('payload_artefacts')
      .select('payload_artefact_id')
      .where('verified_for', '=', decisionId)
      .execute();
    expect(live.map((r) => r.payload_artefact_id)).toEqual([verified[0]!.body.payload_artefact_id]);
  });
});
