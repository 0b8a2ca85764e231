/** Schemas shared by several routes; they also feed the generated OpenAPI document. */
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
