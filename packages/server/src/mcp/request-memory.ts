/**
 * The authorize bodies this process sent for decisions that asked for approval, by policy_decision_id, so the retry
 * after the person's approval repeats the request byte for byte (basket and context included: CONTRACT section 6).
 * Bounded (oldest first out); a body that is gone is rebuilt from the approval record, which names what was approved.
 */
import type { AuthorizeBody } from './agent-session.ts';

const MAX_ENTRIES = 256;

export class RequestMemory {
  readonly #bodies = new Map<string, AuthorizeBody>();

  remember(policyDecisionId: string, body: AuthorizeBody): void {
    this.#bodies.delete(policyDecisionId);
    this.#bodies.set(policyDecisionId, body);
    while (this.#bodies.size > MAX_ENTRIES) this.#bodies.delete(this.#bodies.keys().next().value as string);
  }

  recall(policyDecisionId: string): AuthorizeBody | undefined {
    return this.#bodies.get(policyDecisionId);
  }
}
