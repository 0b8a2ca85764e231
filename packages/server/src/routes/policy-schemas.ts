/** The response shapes the policy routes share (rule-packs.ts, dictionaries.ts, sector-packs.ts, rule-activations.ts). */
import { Type } from 'typebox';
import { Timestamp } from './schemas.ts';

const oneOf = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

export const DocumentState = oneOf(['draft', 'published', 'retired'] as const);

export const DocumentSummary = Type.Object(
  {
    id: Type.String({ description: '`ns:rule_pack:<name>` or `ns:dictionary:<name>`' }),
    name: Type.String(),
    version: Type.String({ description: 'semver' }),
    title: Type.String(),
    domain: Type.Optional(oneOf(['purchase', 'generic'] as const, 'rule packs only')),
    state: DocumentState,
    origin: oneOf(['shipped', 'operator'] as const),
    digest: Type.Union([Type.String(), Type.Null()], {
      description: '`sha-256:` of the published document without `signature`; null for a draft',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);

export const DocumentVersions = Type.Object(
  { id: Type.String(), name: Type.String(), versions: Type.Array(DocumentSummary) },
  { additionalProperties: false },
);

export const AnyDocument = (schema: string) =>
  Type.Object({}, { additionalProperties: true, description: `a \`${schema}\` document (GET /v1/schemas/${schema})` });

export const NameParams = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200, description: 'the name (`velocity`) or the whole id' }) },
  { additionalProperties: false },
);

export const VersionParams = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'the name (`velocity`) or the whole id' }),
    version: Type.String({ minLength: 1, maxLength: 120, description: 'semver, e.g. `1.0.0`' }),
  },
  { additionalProperties: false },
);

export const ActivationTarget = Type.Union(
  [
    Type.Object({ deployment: Type.Literal(true) }, { additionalProperties: false }),
    Type.Object(
      { principal_entity_id: Type.String({ minLength: 1, maxLength: 200 }) },
      { additionalProperties: false },
    ),
    Type.Object({ grant_id: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
  ],
  { description: '`{ deployment: true }`, `{ principal_entity_id }` or `{ grant_id }`' },
);

export const ActivationMode = oneOf(['enforce', 'shadow'] as const, '`shadow`: evaluated and recorded, never decisive');

export const Activation = Type.Object(
  {
    activation_id: Type.String({ description: '`ns:rule_activation:<uuid>`' }),
    pack_id: Type.String(),
    version: Type.String(),
    digest: Type.String(),
    target: ActivationTarget,
    mode: ActivationMode,
    state: oneOf(['active', 'deactivated'] as const),
    sector_pack: Type.Union([Type.String(), Type.Null()], { description: 'the sector pack whose apply made it' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);

export const policyReaders = ['runtime', 'principal', 'auditor'] as const;
