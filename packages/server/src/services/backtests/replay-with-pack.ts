/**
 * One stored decision decided again with the pack under test added to its policy set as an `enforce` pack (replacing
 * the same pack's other version if the decision had one active), with the dictionaries the pack declares. The facts
 * the pack reads that the decision did not record (no active pack read them then) are recomputed as they were at the
 * decision's instant: the local time from its `now` and the principal's zone, the counters from the decisions stored
 * strictly before it (purchase-counters.ts). Nothing is written: decide is pure.
 */
import {
  decide,
  type DecisionFacts,
  type DecisionRequest,
  type DecisionSnapshot,
  type DictionarySnapshot,
  type PolicySetSnapshot,
  type RulePackDocument,
} from '@aar/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import { localTimeOf } from '../authorize/local-time.ts';
import { readPurchaseCounters } from '../authorize/purchase-counters.ts';

export interface PackUnderTest {
  activation_id: string;
  document: RulePackDocument;
  dictionaries: Record<string, DictionarySnapshot>;
  readsCounters: boolean;
  readsLocalTime: boolean;
}

type Snapshot = DecisionSnapshot & { policy_set?: PolicySetSnapshot; facts?: DecisionFacts };

export interface ReplayInput {
  request: DecisionRequest;
  snapshot: DecisionSnapshot;
  now: string;
}

export async function replayWithPack(
  db: Kysely<Database>,
  pack: PackUnderTest,
  input: ReplayInput,
  timeZoneOf: (principal: string) => Promise<string | null>,
): Promise<{ decision: string; reason: string }> {
  const recorded = input.snapshot as Snapshot;
  const packs = (recorded.policy_set?.packs ?? []).filter((p) => p.document.pack_id !== pack.document.pack_id);
  const facts: DecisionFacts = { ...recorded.facts };
  if (pack.readsLocalTime && !facts.local_time) {
    facts.local_time = localTimeOf(new Date(input.now), await timeZoneOf(input.request.principal_entity_id));
  }
  if (pack.readsCounters && !facts.counters) {
    facts.counters = await readPurchaseCounters(
      db,
      {
        principal_entity_id: input.request.principal_entity_id,
        actor_entity_id: input.request.actor_entity_id,
        merchant_id: input.request.merchant_id,
        currency: input.request.amount?.currency,
      },
      new Date(input.now),
      input.now,
    );
  }
  const snapshot: Snapshot = {
    ...recorded,
    policy_set: {
      packs: [...packs, { activation_id: pack.activation_id, mode: 'enforce', document: pack.document }],
      dictionaries: { ...recorded.policy_set?.dictionaries, ...pack.dictionaries },
    },
    ...(Object.keys(facts).length > 0 ? { facts } : {}),
  };
  const result = decide(input.request, snapshot as DecisionSnapshot, input.now);
  return { decision: result.decision, reason: result.reason };
}
