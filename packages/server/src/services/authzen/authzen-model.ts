/**
 * The AuthZEN Authorization API 1.0 information model as this service reads it (CONTRACT section 20): subject,
 * action, resource and context of one evaluation, and the decision answered. Shapes only; the route schemas
 * (routes/authzen-schemas.ts) refuse malformed bodies before any of this runs, and check-evaluation.ts checks what a
 * batch assembles from its defaults and items.
 */
export interface AuthzenSubject {
  type: string;
  id: string;
  properties?: Record<string, unknown>;
}

export interface AuthzenResource {
  type: string;
  id?: string;
  properties?: Record<string, unknown>;
}

export interface AuthzenAction {
  name: string;
  properties?: Record<string, unknown>;
}

export interface AuthzenEvaluation {
  subject: AuthzenSubject;
  action: AuthzenAction;
  resource: AuthzenResource;
  context?: Record<string, unknown>;
}

/** `decision` is the only member a PEP must read; `context.aar` carries this service's whole answer. */
export interface AuthzenDecision {
  decision: boolean;
  context?: Record<string, unknown>;
}

/** The batch body: defaults for every item, the items, and how to run them. */
export interface AuthzenEvaluationsBody {
  subject?: AuthzenSubject;
  action?: AuthzenAction;
  resource?: AuthzenResource;
  context?: Record<string, unknown>;
  evaluations?: Array<Partial<AuthzenEvaluation>>;
  options?: { evaluations_semantic?: EvaluationsSemantic } & Record<string, unknown>;
}

export type EvaluationsSemantic = 'execute_all' | 'deny_on_first_deny' | 'permit_on_first_permit';

/** A batch of more items than this is refused whole (400 naming `/evaluations`), before anything is decided. */
export const MAX_EVALUATIONS = 100;
