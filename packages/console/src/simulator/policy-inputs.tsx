/**
 * The simulator's policy-pack inputs: each shipped pack switched off, enforced or run in shadow, and the facts those
 * packs' rules read (the customer's recent purchases and spending, whether the merchant is new to them, the local
 * hour and weekday, a basket item's category), which the server would count from its store.
 */
import type { RulePackDocument } from '@aar/core';
import { packName, type PackMode } from './shipped-packs.ts';
import type { SimulatorFacts, SimulatorField } from './simulated-world.ts';

const MODES: readonly (readonly [PackMode, string])[] = [
  ['off', 'Off'],
  ['enforce', 'Enforced'],
  ['shadow', 'In shadow (recorded, never decisive)'],
];

const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

const BASKET_CATEGORIES: readonly (readonly [string, string])[] = [
  ['', 'No basket sent'],
  ['groceries', 'Groceries'],
  ['alcohol', 'Alcohol'],
  ['tobacco', 'Tobacco'],
  ['weapons', 'Weapons'],
  ['prescription_medicine', 'Prescription medicine'],
];

export function PackSwitches({
  packs,
  modes,
  onChange,
}: {
  packs: readonly RulePackDocument[];
  modes: Readonly<Record<string, PackMode>>;
  onChange: (name: string, mode: PackMode) => void;
}) {
  return (
    <fieldset class="sim-fieldset" data-testid="pack-switches">
      <legend>Shipped policy packs</legend>
      <p class="field-hint">
        Rules run after the built-in checks and only narrow: a deny, an approval step or extra obligations.
      </p>
      <div class="form-grid">
        {packs.map((pack) => {
          const name = packName(pack);
          const id = `pack-${name}`;
          return (
            <div class="field" key={name}>
              <label for={id}>{pack.title}</label>
              <select
                id={id}
                data-pack={name}
                value={modes[name] ?? 'off'}
                aria-describedby={`${id}-hint`}
                onChange={(e) => onChange(name, (e.currentTarget as HTMLSelectElement).value as PackMode)}
              >
                {MODES.map(([value, text]) => (
                  <option key={value} value={value}>
                    {text}
                  </option>
                ))}
              </select>
              <span id={`${id}-hint`} class="field-hint">
                <code>{name}</code>, {pack.rules.length} rule{pack.rules.length === 1 ? '' : 's'}
              </span>
            </div>
          );
        })}
      </div>
    </fieldset>
  );
}

export function FactInputs({
  facts,
  errors,
  onChange,
}: {
  facts: SimulatorFacts;
  errors: Partial<Record<SimulatorField, string>>;
  onChange: (facts: SimulatorFacts) => void;
}) {
  const set = <K extends keyof SimulatorFacts>(key: K, value: SimulatorFacts[K]) =>
    onChange({ ...facts, [key]: value });
  const text = (key: keyof SimulatorFacts & SimulatorField, label: string, hint?: string) => {
    const id = `fact-${key}`;
    const error = errors[key];
    const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ');
    return (
      <div class="field">
        <label for={id}>{label}</label>
        <input
          id={id}
          type="text"
          inputMode="decimal"
          autoComplete="off"
          value={facts[key] as string}
          aria-invalid={error ? 'true' : 'false'}
          aria-describedby={described || undefined}
          onInput={(e) => set(key, (e.currentTarget as HTMLInputElement).value)}
        />
        {hint && (
          <span id={`${id}-hint`} class="field-hint">
            {hint}
          </span>
        )}
        {error && (
          <span id={`${id}-error`} class="field-error">
            {error}
          </span>
        )}
      </div>
    );
  };
  return (
    <fieldset class="sim-fieldset" data-testid="fact-inputs">
      <legend>What the rules read</legend>
      <p class="field-hint">The service counts these from its records; here you set them.</p>
      <div class="form-grid">
        {text('purchases1h', "Customer's purchases in the last hour")}
        {text('purchases24h', "Customer's purchases in the last 24 hours")}
        {text('agentPurchases24h', "This agent's purchases in the last 24 hours")}
        {text('spend24h', "Customer's spend in the last 24 hours (EUR)")}
        {text('spend30d', "Customer's spend in the last 30 days (EUR)")}
        {text('localHour', "Local hour (customer's time zone)", '0 to 23, Europe/Berlin')}
        <div class="field">
          <label for="fact-weekday">Local weekday</label>
          <select
            id="fact-weekday"
            value={facts.weekday}
            onChange={(e) => set('weekday', (e.currentTarget as HTMLSelectElement).value)}
          >
            {WEEKDAYS.map((day, i) => (
              <option key={day} value={String(i + 1)}>
                {day}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="fact-basket">Basket item category</label>
          <select
            id="fact-basket"
            value={facts.basketCategory}
            onChange={(e) => set('basketCategory', (e.currentTarget as HTMLSelectElement).value)}
          >
            {BASKET_CATEGORIES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div class="field field-check">
          <input
            id="fact-first-purchase"
            type="checkbox"
            checked={facts.merchantFirstPurchase}
            onChange={(e) => set('merchantFirstPurchase', (e.currentTarget as HTMLInputElement).checked)}
          />
          <label for="fact-first-purchase">First purchase of this customer at this merchant</label>
        </div>
      </div>
    </fieldset>
  );
}
