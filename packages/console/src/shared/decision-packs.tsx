/**
 * Which policy packs took part in a decision (CONTRACT section 19 "In the evidence"): the packs the decision map's
 * policy node names (id, version, digest, mode), the rule that decided (from `diagnostics.rules` and the pack document
 * the snapshot's `policy_set` carries, drawn in plain words beside its JSON), every other rule that matched, and what
 * each shadow pack would have decided. Renders nothing for a decision made without packs. Shared by the console's
 * decision page (packs linked to their pages) and the simulator (no links: it is public and signed out).
 */
import type {
  DecisionFacts,
  DecisionMapNode,
  PolicySetSnapshot,
  Rule,
  RuleDiagnostic,
  RulePackDocument,
  ShadowOutcome,
} from '@aar/core';
import { EffectBadge, RuleCard } from './rule-card.tsx';
import { ruleReasonPack } from './reason-text.ts';

export interface PackRef {
  pack_id: string;
  version: string;
  digest?: string;
  mode?: string;
}

export interface DecisionPackInputs {
  reason: string;
  diagnostics: { rules?: RuleDiagnostic[] };
  shadow?: ShadowOutcome[];
  snapshot?: { policy_set?: PolicySetSnapshot; facts?: DecisionFacts };
  result?: { shadow?: ShadowOutcome[] };
}

type MapNodeWithPacks = DecisionMapNode & { packs?: PackRef[] };

function documentOf(policySet: PolicySetSnapshot | undefined, packId: string, version: string) {
  return policySet?.packs.find((p) => p.document.pack_id === packId && p.document.version === version)?.document;
}

/** The matched rule whose reason is the decision's: the first deny or require_approval rule naming that reason. */
export function decidingRule(
  record: DecisionPackInputs,
): { rule: Rule; document: RulePackDocument; diagnostic: RuleDiagnostic } | undefined {
  if (!ruleReasonPack(record.reason)) return undefined;
  for (const diagnostic of record.diagnostics.rules ?? []) {
    if (diagnostic.effect !== 'deny' && diagnostic.effect !== 'require_approval') continue;
    const document = documentOf(record.snapshot?.policy_set, diagnostic.pack_id, diagnostic.version);
    const rule = document?.rules.find((r) => r.rule_id === diagnostic.rule_id);
    if (document && rule && rule.reason === record.reason) return { rule, document, diagnostic };
  }
  return undefined;
}

export function DecisionPacks({
  record,
  nodes,
  packHref,
}: {
  record: DecisionPackInputs;
  nodes: readonly DecisionMapNode[];
  /** a link to a pack version's page, `name` being the last part of the pack id */
  packHref?: (name: string, version: string) => string;
}) {
  const policyNode = nodes.find((n) => n.type === 'policy') as MapNodeWithPacks | undefined;
  const policySet = record.snapshot?.policy_set;
  const packs: PackRef[] =
    policyNode?.packs ??
    (policySet?.packs ?? []).map((p) => ({ pack_id: p.document.pack_id, version: p.document.version, mode: p.mode }));
  const matched = record.diagnostics.rules ?? [];
  const shadow = record.shadow ?? record.result?.shadow ?? [];
  if (packs.length === 0 && matched.length === 0 && shadow.length === 0) return null;
  const decided = decidingRule(record);
  return (
    <section class="card" aria-labelledby="packs-heading" data-testid="decision-packs">
      <h2 id="packs-heading">Policy packs</h2>
      <h3>Active when this was decided</h3>
      <ul class="decision-pack-list" data-testid="decision-pack-list">
        {packs.map((p) => (
          <li key={`${p.pack_id}@${p.version}`} data-pack-id={p.pack_id}>
            {packHref ? (
              <a href={packHref(p.pack_id.slice(p.pack_id.lastIndexOf(':') + 1), p.version)}>
                {p.pack_id}@{p.version}
              </a>
            ) : (
              <code>
                {p.pack_id}@{p.version}
              </code>
            )}{' '}
            <span class="muted">
              {p.mode === 'shadow' ? 'in shadow' : 'enforced'}
              {p.digest ? ` · ${p.digest}` : ''}
            </span>
          </li>
        ))}
      </ul>
      {decided ? (
        <>
          <h3>The rule that decided</h3>
          <RuleCard
            rule={decided.rule}
            reasons={decided.document.reasons}
            headingLevel={4}
            highlight={`Decided, from ${decided.document.pack_id}@${decided.document.version}`}
          />
        </>
      ) : (
        ruleReasonPack(record.reason) === undefined && (
          <p class="muted">The built-in checks decided; the packs did not change this outcome.</p>
        )
      )}
      {record.snapshot?.facts && <FactsRead facts={record.snapshot.facts} />}
      {matched.length > 0 && (
        <>
          <h3>Rules that matched</h3>
          <div class="table-wrap">
            <table data-testid="matched-rules">
              <thead>
                <tr>
                  <th scope="col">Pack</th>
                  <th scope="col">Rule</th>
                  <th scope="col">Effect</th>
                </tr>
              </thead>
              <tbody>
                {matched.map((m) => (
                  <tr key={`${m.pack_id}@${m.version}/${m.rule_id}`}>
                    <td>
                      <code>
                        {m.pack_id}@{m.version}
                      </code>
                    </td>
                    <td>
                      <code>{m.rule_id}</code>
                      {m.error && <span class="fail-text"> (failed to evaluate: counted as matched)</span>}
                    </td>
                    <td>
                      <EffectBadge effect={m.effect} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {shadow.length > 0 && (
        <>
          <h3>Shadow packs: what they would have decided</h3>
          <div class="table-wrap">
            <table data-testid="shadow-outcomes">
              <thead>
                <tr>
                  <th scope="col">Pack</th>
                  <th scope="col">Would have</th>
                  <th scope="col">Reason</th>
                </tr>
              </thead>
              <tbody>
                {shadow.map((s) => (
                  <tr key={`${s.pack_id}@${s.version}`}>
                    <td>
                      <code>
                        {s.pack_id}@{s.version}
                      </code>
                    </td>
                    <td>{s.effect === 'none' ? 'Changed nothing' : <EffectBadge effect={s.effect} />}</td>
                    <td>{s.reason ? <code>{s.reason}</code> : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}

/** The facts the rules read, as the snapshot recorded them (the server counted them when the decision was made). */
function FactsRead({ facts }: { facts: DecisionFacts }) {
  const c = facts.counters;
  const t = facts.local_time;
  return (
    <>
      <h3>Facts the rules read</h3>
      <dl class="facts" data-testid="facts-read">
        {c && (
          <>
            <dt>Purchases</dt>
            <dd>
              {c.purchases_1h} in the last hour, {c.purchases_24h} in 24 hours (this agent: {c.agent_purchases_1h} and{' '}
              {c.agent_purchases_24h})
            </dd>
            <dt>Spend</dt>
            <dd>
              {c.spend_24h_minor} minor units in 24 hours, {c.spend_30d_minor} in 30 days
            </dd>
            <dt>New merchant</dt>
            <dd>{c.merchant_first_purchase ? 'yes: first purchase here' : 'no'}</dd>
          </>
        )}
        {t && (
          <>
            <dt>Local time</dt>
            <dd>
              {t.date} {String(t.hour).padStart(2, '0')}:{String(t.minute).padStart(2, '0')} ({t.zone}, weekday{' '}
              {t.weekday})
            </dd>
          </>
        )}
      </dl>
    </>
  );
}
