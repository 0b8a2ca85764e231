/**
 * Recorded with every decision and in evidence: which decide produced it. Bump when decide's behaviour changes.
 * 1.2.0: several covering chains (`snapshot.alternatives`, the most permissive outcome kept); a deny binds no basket;
 *        payload freshness inclusive on both sides in whole seconds (a 1.1.0 `payload_stale` at exactly -300 s
 *        replays as fresh under 1.2.0 and reports a mismatch: an edge no earlier pack is known to hold).
 * 1.3.0: rule packs (CONTRACT section 19): `snapshot.policy_set` (signed packs, dictionaries) and `snapshot.facts`
 *        (counters, local time); after checks 1-7 the enforce packs' first matched deny decides with its
 *        `<pack>.<code>` reason, a matched require_approval asks for approval, matched rules add obligations and stop
 *        conditions; `diagnostics.rules` and `result.shadow`. A snapshot without `policy_set` decides as 1.2.0.
 * 1.4.0: mandates and budgets (CONTRACT section 21, DESIGN-29 section 3): scope fields `budget` (checked after the
 *        daily limit against `grant.budget_spent`, execute only; missing or malformed spend is `budget_exceeded`)
 *        and `allowed_merchants` (`merchant_not_allowed`, right after `merchant_unknown`); `grant.mandate` names
 *        `mandate_revoked` / `mandate_expired` for a revoked / expired link made from a mandate, then
 *        `allowance_used`; the decision map's delegation node gets `mandate_ref`. A snapshot without these members
 *        decides as 1.3.0.
 * 1.5.0: agent metadata (issue 30): `request.agent_metadata` ({ model, software_version, operator }) must equal
 *        `snapshot.agent_metadata` (the agent's latest attestation, signed with its own key), else
 *        `agent_metadata_mismatch` (deny), judged in step 2 right after the actor; presented with nothing attested is
 *        a mismatch too. The decision map's actor node gets `agent_metadata` and `attestation_digest`. A request
 *        without `agent_metadata` decides as 1.4.0, whatever the snapshot holds.
 * Replay accepts every earlier version (core evidence/replay-decision.ts).
 */
export const ENGINE_VERSION = 'aar-decide/1.5.0';
