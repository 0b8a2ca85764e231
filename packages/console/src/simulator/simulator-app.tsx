/**
 * The public purchase simulator: the seven inputs as form controls, decided on every change by core's `decide` in
 * this page (no request leaves the browser after it has loaded), with the decision, reason, obligations, stop
 * conditions, the checks in order and the decision map. The shipped policy packs can be switched on (enforced or in
 * shadow), with the facts their rules read as further inputs; the rule that decided is shown in plain words.
 */
import { useMemo, useState } from 'preact/hooks';
import { formatMoney, type CheckDiagnostic, type EntityState, type RiskState } from '@aar/core';
import { DecisionBadge } from '../shared/decision-badge.tsx';
import { DecisionChain } from '../shared/decision-chain.tsx';
import { DecisionPacks, decidingRule } from '../shared/decision-packs.tsx';
import { declaredReason } from '../shared/rule-card.tsx';
import { reasonText } from '../shared/reason-text.ts';
import { FactInputs, PackSwitches } from './policy-inputs.tsx';
import { SHIPPED_PACKS } from './shipped-packs.ts';
import {
  DEFAULT_INPUTS,
  FIXED_SCOPE,
  SAMPLE_MERCHANTS,
  simulate,
  type AuthorityState,
  type CardTokenState,
  type Simulation,
  type SimulatorField,
  type SimulatorInputs,
} from './simulated-world.ts';

type Option<T extends string> = readonly (readonly [T, string])[];

const AGENT_STATES: Option<EntityState> = [
  ['active', 'Active'],
  ['suspended', 'Suspended'],
  ['tombstoned', 'Erased (right to erasure)'],
];
const AUTHORITY_STATES: Option<AuthorityState> = [
  ['active', 'Active grant'],
  ['revoked', 'Revoked by the customer'],
  ['expired', 'Expired'],
  ['none', 'No grant to this agent'],
];
const CARD_STATES: Option<CardTokenState> = [
  ['active', 'Active'],
  ['suspended', 'Suspended'],
  ['other_customer', "Another customer's card"],
];
const RISK_STATES: Option<RiskState> = [
  ['normal', 'Normal'],
  ['elevated', 'Elevated'],
  ['blocked', 'Blocked'],
];
const MERCHANTS: Option<string> = SAMPLE_MERCHANTS.map(
  (m) => [m.id, `${m.label} (category ${m.category}, ${m.jurisdiction})`] as const,
);

export function SimulatorApp() {
  const [inputs, setInputs] = useState<SimulatorInputs>(DEFAULT_INPUTS);
  // the clock is read here, at the edge; core's decide takes it as an argument
  const outcome = useMemo(() => simulate(inputs, new Date()), [inputs]);
  const set =
    <K extends keyof SimulatorInputs>(key: K) =>
    (value: SimulatorInputs[K]) =>
      setInputs((current) => ({ ...current, [key]: value }));
  const amountError = !outcome.ok && outcome.field === 'basketAmount' ? outcome.message : undefined;
  const thresholdError = !outcome.ok && outcome.field === 'approvalThreshold' ? outcome.message : undefined;
  const factErrors: Partial<Record<SimulatorField, string>> = outcome.ok ? {} : { [outcome.field]: outcome.message };

  return (
    <main id="main" class="page">
      <header class="sim-header">
        <h1>Purchase simulator</h1>
        <a href="/console/">Operations console</a>
      </header>
      <p class="notice" role="note" data-testid="illustrative-notice">
        <strong>Illustrative only.</strong> This page runs the service's decision rules in your browser on made-up
        facts. It is not the production decision: a real decision also verifies the agent's signature and every
        delegation link, reads live state and counts the day's spending, and is recorded and signed.
      </p>
      <div class="sim-layout">
        <section class="card sim-inputs" aria-labelledby="inputs-heading">
          <h2 id="inputs-heading">The seven inputs</h2>
          <form class="form-grid" onSubmit={(e) => e.preventDefault()}>
            <Select
              id="agent-state"
              label="Agent state"
              options={AGENT_STATES}
              value={inputs.agentState}
              onChange={set('agentState')}
            />
            <Select
              id="authority"
              label="Customer authority"
              hint="The customer's grant to the agent over the card"
              options={AUTHORITY_STATES}
              value={inputs.authority}
              onChange={set('authority')}
            />
            <Select
              id="merchant"
              label="Merchant"
              options={MERCHANTS}
              value={inputs.merchantId}
              onChange={set('merchantId')}
            />
            <Amount
              id="basket-amount"
              label="Basket amount (EUR)"
              value={inputs.basketAmount}
              error={amountError}
              onInput={set('basketAmount')}
            />
            <Amount
              id="approval-threshold"
              label="Approval threshold (EUR)"
              hint="Above it, the customer must approve"
              value={inputs.approvalThreshold}
              error={thresholdError}
              onInput={set('approvalThreshold')}
            />
            <Select
              id="card-token"
              label="Card token state"
              options={CARD_STATES}
              value={inputs.cardToken}
              onChange={set('cardToken')}
            />
            <Select id="risk" label="Risk state" options={RISK_STATES} value={inputs.risk} onChange={set('risk')} />
          </form>
          <FixedFacts />
          <PackSwitches
            packs={SHIPPED_PACKS}
            modes={inputs.packs}
            onChange={(name, mode) =>
              setInputs((current) => ({ ...current, packs: { ...current.packs, [name]: mode } }))
            }
          />
          <FactInputs facts={inputs.facts} errors={factErrors} onChange={set('facts')} />
        </section>
        <section class="card sim-outcome" aria-labelledby="outcome-heading">
          <h2 id="outcome-heading">Outcome</h2>
          <div aria-live="polite" data-testid="outcome">
            {outcome.ok ? (
              <Outcome simulation={outcome.simulation} />
            ) : (
              <p class="error">Correct the highlighted input to see a decision.</p>
            )}
          </div>
        </section>
      </div>
    </main>
  );
}

function Select<T extends string>(props: {
  id: string;
  label: string;
  hint?: string;
  options: Option<T>;
  value: T;
  onChange: (value: T) => void;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select
        id={props.id}
        value={props.value}
        aria-describedby={props.hint ? `${props.id}-hint` : undefined}
        onChange={(e) => props.onChange((e.currentTarget as HTMLSelectElement).value as T)}
      >
        {props.options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
      {props.hint && (
        <span id={`${props.id}-hint`} class="field-hint">
          {props.hint}
        </span>
      )}
    </div>
  );
}

function Amount(props: {
  id: string;
  label: string;
  hint?: string;
  value: string;
  error: string | undefined;
  onInput: (value: string) => void;
}) {
  const described = [props.hint && `${props.id}-hint`, props.error && `${props.id}-error`].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="text"
        inputMode="decimal"
        autoComplete="off"
        value={props.value}
        aria-invalid={props.error ? 'true' : 'false'}
        aria-describedby={described || undefined}
        onInput={(e) => props.onInput((e.currentTarget as HTMLInputElement).value)}
      />
      {props.hint && (
        <span id={`${props.id}-hint`} class="field-hint">
          {props.hint}
        </span>
      )}
      {props.error && (
        <span id={`${props.id}-error`} class="field-error">
          {props.error}
        </span>
      )}
    </div>
  );
}

function FixedFacts() {
  return (
    <details>
      <summary>What the simulator keeps fixed</summary>
      <dl class="facts">
        <dt>Per-purchase limit</dt>
        <dd>{formatMoney(FIXED_SCOPE.max_amount_per_purchase)}</dd>
        <dt>Daily limit</dt>
        <dd>{formatMoney(FIXED_SCOPE.max_daily_amount)}, nothing spent yet today</dd>
        <dt>Blocked categories</dt>
        <dd>{FIXED_SCOPE.blocked_merchant_categories.join(', ')} (gambling)</dd>
        <dt>Allowed countries</dt>
        <dd>{FIXED_SCOPE.allowed_jurisdictions.join(', ')}</dd>
        <dt>Action</dt>
        <dd>
          <code>purchase.execute</code> by a direct grant; the request signature is not simulated
        </dd>
      </dl>
    </details>
  );
}

function Outcome({ simulation }: { simulation: Simulation }) {
  const { result, map, snapshot } = simulation;
  const record = { reason: result.reason, diagnostics: result.diagnostics, shadow: result.shadow, snapshot };
  const decided = decidingRule(record);
  return (
    <>
      <p class="sim-outcome-head">
        <DecisionBadge decision={result.decision} />
        <code data-testid="reason">{result.reason}</code>
      </p>
      <p data-testid="reason-text">
        {reasonText(result.reason, declaredReason(decided?.document.reasons, result.reason))}
      </p>
      <div class="grid-2">
        <div>
          <h3>Obligations</h3>
          <ul class="chip-list" aria-label="Obligations">
            {result.obligations.map((o) => (
              <li key={o.type}>
                <code>{o.type}</code>
              </li>
            ))}
          </ul>
        </div>
        <div>
          <h3>Stop conditions</h3>
          {result.stop_conditions.length === 0 ? (
            <p class="muted">None: nothing was allowed.</p>
          ) : (
            <ul class="chip-list" aria-label="Stop conditions">
              {result.stop_conditions.map((s) => (
                <li key={s}>
                  <code>{s}</code>
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>
      <h3>Decision map</h3>
      <DecisionChain id="sim-map" nodes={map.nodes} decision={map.decision} reason={map.reason} />
      <DecisionPacks record={record} nodes={map.nodes} />
      <h3 style={{ marginTop: '1rem' }}>Checks, in the order they run</h3>
      <ol class="checks">
        {result.diagnostics.checks.map((check) => (
          <CheckLine key={check.check} check={check} />
        ))}
      </ol>
    </>
  );
}

function CheckLine({ check }: { check: CheckDiagnostic }) {
  return (
    <li>
      <span class={`check-outcome check-${check.outcome}`}>{check.outcome}</span>
      <span>{check.check}</span>
      <span class="check-what">
        {check.reason && <code>{check.reason}</code>} {check.detail && <span class="muted">{check.detail}</span>}
      </span>
    </li>
  );
}
