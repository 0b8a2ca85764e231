/** Schemas shared by several routes; they also feed the generated OpenAPI document. */
import { REASON_CODES, RULE_REASON_PATTERN, type Decision, type ReasonCode } from '@aar/core';
import { Type } from 'typebox';

export const IdParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 256 }) },
  { additionalProperties: false },
);

export const MoneySchema = Type.Object(
  {
    amount: Type.Number({ description: 'major units, e.g. 30.00; no more decimals than the currency has' }),
    currency: Type.String({ description: 'ISO 4217 alpha-3', minLength: 1, maxLength: 8 }),
  },
  { additionalProperties: false },
);

export const Timestamp = Type.String({ format: 'date-time' });

/**
 * A `pattern` for one line of display text: no C0 control character and no DEL. PostgreSQL cannot hold U+0000 in
 * `text` (the driver fails, a 500) while SQLite stores it, so a field that reaches a column refuses it at the edge,
 * naming the field, the same on both dialects.
 */
export const SINGLE_LINE_TEXT = '^[^\\u0000-\\u001f\\u007f]*$';

/** The three decisions (CONTRACT section 3): a closed set, an `enum` in the document. */
export const DecisionSchema = Type.Unsafe<Decision>({
  type: 'string',
  enum: ['allow_with_constraints', 'require_approval', 'deny'] satisfies Decision[],
});

/**
 * Every reason code of core's REASON_CODES, read from it so the document cannot drift from the engine. A plain
 * string enum rather than a union of literals: the authorize answer is serialised on the hot path.
 */
export const ReasonCodeSchema = Type.Unsafe<ReasonCode | `${string}.${string}`>({
  anyOf: [
    { type: 'string', enum: Object.keys(REASON_CODES) as ReasonCode[] },
    { type: 'string', pattern: RULE_REASON_PATTERN, description: 'a rule pack\u2019s reason, `<pack name>.<code>`' },
  ],
  description:
    'a reason code of the contract (docs/authorize.md lists what each means), or the reason of a rule of an active ' +
    'rule pack, `<pack name>.<code>` (CONTRACT section 19; the pack declares what each means)',
});

/** An approval's state as a reader sees it (a lapsed pending or approved approval reads `expired`). */
export const ApprovalStatusSchema = Type.Unsafe<'pending' | 'approved' | 'rejected' | 'expired' | 'consumed'>({
  type: 'string',
  enum: ['pending', 'approved', 'rejected', 'expired', 'consumed'],
});
