/**
 * The audit chain's HTTP face (CONTRACT sections 8 and 11): mounted at `/v1/audit` on the main server, and at the
 * root by `aar audit-serve` (audit/audit-app.ts). Reads are for `auditor` (and `admin`); appending and signing a
 * checkpoint are `admin` only. Indices and sizes are decimal strings without sign or leading zeros, checked against
 * the committed tree (audit/audit-proofs.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { fieldError } from '@aar/core';
import type { AppContext } from '../app-context.ts';
import { appendExternalEntry, readAuditEntry, readAuditEntryById } from '../audit/audit-entries.ts';
import { proveConsistency, proveInclusion } from '../audit/audit-proofs.ts';
import { latestCheckpoint, signCheckpoint } from '../audit/checkpoints.ts';
import { verifyAuditLog } from '../audit/verify-audit-log.ts';

const TreeNumber = (description: string) =>
  Type.String({ pattern: '^(0|[1-9][0-9]{0,15})$', description: `${description} (decimal)` });

const Signature = Type.Object({ algorithm: Type.String(), key_id: Type.String(), signature: Type.String() });

const Checkpoint = Type.Object(
  {
    origin: Type.String(),
    size: Type.Integer(),
    root_hash: Type.String({ description: 'standard base64 MTH of the first `size` entries' }),
    timestamp: Type.String(),
    signature: Signature,
  },
  { description: 'signed checkpoint (CONTRACT section 4)' },
);

const VerificationMark = Type.Object(
  {
    schema_version: Type.Literal('ns.audit_verification.v1'),
    origin: Type.String(),
    size: Type.Integer({ description: 'entries found valid: [0, size)' }),
    root_hash: Type.String({ description: 'standard base64 MTH of the first `size` entries' }),
    last_leaf_hash: Type.String(),
    frontier: Type.Object({ size: Type.Integer(), hashes: Type.Array(Type.String()) }),
    checkpoint_size: Type.Union([Type.Integer(), Type.Null()]),
    record_seqs: Type.Object({ decisions: Type.Integer(), events: Type.Integer(), approvals: Type.Integer() }),
    walked_from: Type.Integer(),
    verified_at: Type.String(),
    signature: Signature,
  },
  { description: 'signed `ns.audit_verification.v1` (docs/audit.md, "Incremental verification")' },
);

const Entry = Type.Object({
  index: Type.Integer(),
  audit_id: Type.String(),
  leaf_hash: Type.String({ description: 'SHA-256(0x00 ‖ entry), standard base64' }),
  entry: Type.String({ description: 'the exact leaf bytes: RFC 8785 JSON of `ns.audit_entry.v1`' }),
});

const InclusionProof = Type.Object({
  leaf_index: Type.Integer(),
  tree_size: Type.Integer(),
  leaf_hash: Type.String(),
  hashes: Type.Array(Type.String()),
});

const ConsistencyProof = Type.Object({
  size1: Type.Integer(),
  size2: Type.Integer(),
  hashes: Type.Array(Type.String()),
});

const Verification = Type.Object({
  valid: Type.Boolean(),
  size: Type.Integer(),
  root_hash: Type.String(),
  checked: Type.Integer(),
  first_invalid_index: Type.Optional(Type.Integer()),
  failure: Type.Optional(Type.String({ description: 'why the log is invalid (docs/audit.md)' })),
  record: Type.Optional(
    Type.Object(
      { table: Type.String(), id: Type.String() },
      { description: 'the stored record that disagrees with the audit entry committing to it' },
    ),
  ),
  detail: Type.Optional(Type.String({ description: 'which member or column differs' })),
  checkpoint: Type.Union([Checkpoint, Type.Null()]),
  from: Type.Integer({
    description: 'the first entry this run walked: 0 for a full run, the resumed mark’s size with `from=verified`',
  }),
  mark: Type.Union([VerificationMark, Type.Null()], {
    description: 'when valid: the signed verification mark of this result, which `from=verified` resumes from',
  }),
});

const VerifyQuery = Type.Object(
  {
    from: Type.Optional(
      Type.Union([Type.Literal('start'), Type.Literal('verified')], {
        description:
          '`start` (default): the whole log. `verified`: from the latest signed verification mark, so the cost is ' +
          'that of what was appended since (the whole log when there is no mark yet)',
      }),
    ),
  },
  { additionalProperties: false },
);

const AppendBody = Type.Object(
  {
    kind: Type.String({ description: '`[a-z][a-z0-9_.:-]{0,127}`, not starting with `ns.`' }),
    subject_ref: Type.String({ minLength: 1, maxLength: 256 }),
    record: Type.Unknown({ description: 'any JSON value; only its SHA-256 (RFC 8785) enters the chain' }),
  },
  { additionalProperties: false },
);

export async function auditRoutes(app: FastifyInstance, ctx: AppContext, prefix = '/v1/audit'): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['audit'];
  const read = { roles: ['auditor'] as const };

  r.post(`${prefix}/append`, {
    schema: {
      tags,
      summary: 'Append a record (by digest) to the audit chain',
      operationId: 'appendAuditEntry',
      description:
        'Commits an external record to the write-once chain: only its SHA-256 (RFC 8785) enters the entry, with ' +
        'your `kind` (not starting with `ns.`, reserved for the service) and `subject_ref`. Answers the new leaf, ' +
        'its index and exact bytes; later checkpoints and proofs cover it. An entry can never be changed or removed.',
      body: AppendBody,
      response: { 201: Entry },
    },
    handler: async (req, reply) => reply.code(201).send(await appendExternalEntry(ctx, req.body)),
  });

  r.get(`${prefix}/verify`, {
    config: read,
    schema: {
      tags,
      summary: 'Recompute the hash chain and the Merkle tree from the stored entries',
      operationId: 'verifyAuditLog',
      description:
        'Reads the whole log and recomputes every leaf hash, the chain, the Merkle root and the latest checkpoint ' +
        'signature, and checks each stored record (decisions, events, approvals, revocations, evidence packs) ' +
        'against the entry that commits to it. Answers 200 with `valid`, and on failure the first bad index, the ' +
        'reason and the record. A valid run stores a signed verification mark; `from=verified` starts from the ' +
        'latest one and checks only what was appended since (plus every evidence pack). Its cost grows with what ' +
        'it reads: run it from an auditor job, not per request.',
      querystring: VerifyQuery,
      response: { 200: Verification },
    },
    handler: async (req) => verifyAuditLog(ctx, { from: req.query.from ?? 'start' }),
  });

  r.get(`${prefix}/checkpoint`, {
    config: { ...read, errors: ['conflict', 'audit_unavailable'] },
    schema: {
      tags,
      summary: 'The latest signed checkpoint (one is signed on demand when none exists yet)',
      operationId: 'getAuditCheckpoint',
      description:
        'The newest `{ origin, size, root_hash, timestamp, signature }` signed by the service key: a commitment to ' +
        'the first `size` entries that proofs are checked against. When none exists yet one is signed now (409 ' +
        '`conflict` while the log is empty).',
      response: { 200: Checkpoint },
    },
    handler: async () => (await latestCheckpoint(ctx.store.db)) ?? signCheckpoint(ctx),
  });

  r.post(`${prefix}/checkpoint`, {
    config: { errors: ['conflict'] },
    schema: {
      tags,
      summary: 'Sign a checkpoint of the log as it is now (consistent with the latest one, or refused)',
      operationId: 'signAuditCheckpoint',
      description:
        'Signs a checkpoint of the whole log now, after proving it consistent with the latest one (otherwise 503 ' +
        '`audit_unavailable`: the log would have been rewritten). A log that has not grown since answers the ' +
        'latest checkpoint unchanged; an empty log is 409 `conflict`. Checkpoints are also signed periodically.',
      response: { 200: Checkpoint },
    },
    handler: async () => signCheckpoint(ctx),
  });

  r.get(`${prefix}/entries/:index`, {
    config: read,
    schema: {
      tags,
      summary: 'One entry of the log, by leaf index or by its `ns:audit:<uuid>` (the `audit_ref` of maps and events)',
      operationId: 'getAuditEntry',
      description:
        'The exact leaf bytes (RFC 8785 JSON of `ns.audit_entry.v1`) with the leaf hash and index, so a holder of ' +
        'an `audit_ref` can recompute the hash and ask for its inclusion proof. An index beyond the log or an ' +
        'unknown id is 404.',
      params: Type.Object(
        {
          index: Type.Union([
            TreeNumber('leaf index'),
            Type.String({ pattern: '^ns:audit:[0-9a-f-]{36}$', description: 'the entry id, `ns:audit:<uuid>`' }),
          ]),
        },
        { additionalProperties: false },
      ),
      response: { 200: Entry },
    },
    handler: async (req) =>
      req.params.index.startsWith('ns:audit:')
        ? readAuditEntryById(ctx.store.db, req.params.index)
        : readAuditEntry(ctx.store.db, treeNumber(req.params.index, '/params/index')),
  });

  r.get(`${prefix}/proofs/inclusion`, {
    config: { ...read, errors: ['audit_unavailable'] },
    schema: {
      tags,
      summary: 'RFC 9162 inclusion proof of leaf `index` in the tree of `size` leaves (default: the whole log)',
      operationId: 'getInclusionProof',
      description:
        'The audit path that proves leaf `index` is in the tree of `size` leaves; check it against the `root_hash` ' +
        'of a signed checkpoint of that size. `index` must be below `size`, and `size` at most the log size (400 ' +
        'naming the parameter otherwise).',
      querystring: Type.Object(
        { index: TreeNumber('leaf index'), size: Type.Optional(TreeNumber('tree size')) },
        { additionalProperties: false },
      ),
      response: { 200: InclusionProof },
    },
    handler: async (req) =>
      proveInclusion(
        ctx.store.db,
        treeNumber(req.query.index, '/query/index'),
        req.query.size === undefined ? undefined : treeNumber(req.query.size, '/query/size'),
      ),
  });

  r.get(`${prefix}/proofs/consistency`, {
    config: { ...read, errors: ['audit_unavailable'] },
    schema: {
      tags,
      summary: 'RFC 9162 consistency proof from the tree of `from` leaves to the tree of `to` (default: the whole log)',
      operationId: 'getConsistencyProof',
      description:
        'The hashes that prove the tree of `to` leaves extends the tree of `from` leaves unchanged: an auditor ' +
        'holding an older checkpoint checks with it that nothing was rewritten since. Needs 0 < `from` <= `to` <= ' +
        'the log size (400 naming the parameter otherwise).',
      querystring: Type.Object(
        { from: TreeNumber('older tree size'), to: Type.Optional(TreeNumber('newer tree size')) },
        { additionalProperties: false },
      ),
      response: { 200: ConsistencyProof },
    },
    handler: async (req) =>
      proveConsistency(
        ctx.store.db,
        treeNumber(req.query.from, '/query/from'),
        req.query.to === undefined ? undefined : treeNumber(req.query.to, '/query/to'),
      ),
  });
}

function treeNumber(text: string, path: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw fieldError('invalid_request', path, 'must be below 2^53');
  return value;
}
