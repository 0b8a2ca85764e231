/**
 * The events of a rule pack's or dictionary's state (catalogue: core/src/events/families/policy.ts), each with its
 * audit entry in the changing transaction. Their data restate what the row must hold (`document_digest` the SHA-256
 * of the stored bytes, `digest` the published digest), which is what `GET /v1/audit/verify` checks the rows by
 * (audit/record-checks/check-policy-documents.ts).
 */
import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { digestOfCanonical } from '../../audit/audit-entry.ts';
import type { Database } from '../../store/index.ts';
import { appendEvent } from '../events/append-event.ts';
import { policyId, refOf } from './policy-ids.ts';
import type { DocumentKind } from './stored-documents.ts';

const ID_MEMBER: Readonly<Record<DocumentKind, string>> = { rule_pack: 'pack_id', dictionary: 'dictionary_id' };

export interface DocumentEventInput {
  kind: DocumentKind;
  name: string;
  version: string;
  domain?: string;
  origin: 'shipped' | 'operator';
  /** the stored RFC 8785 text */
  text: string;
  /** published: the digest without signature */
  digest?: string;
  actor: string | null;
}

export async function appendDraftedEvent(
  trx: Transaction<Database>,
  ctx: AppContext,
  e: DocumentEventInput,
): Promise<void> {
  await appendEvent(trx, ctx, {
    event_type: `ns.${e.kind}.drafted`,
    actor_entity_id: e.actor,
    principal_entity_id: null,
    subject_ref: refOf(e.kind, e.name, e.version),
    reason_code: `${e.kind}_drafted`,
    data: {
      [ID_MEMBER[e.kind]]: policyId(e.kind, e.name),
      version: e.version,
      ...(e.kind === 'rule_pack' ? { domain: e.domain } : {}),
      origin: e.origin,
      document_digest: digestOfCanonical(e.text),
    },
  });
}

export async function appendPublishedEvent(
  trx: Transaction<Database>,
  ctx: AppContext,
  e: DocumentEventInput & { digest: string },
): Promise<void> {
  await appendEvent(trx, ctx, {
    event_type: `ns.${e.kind}.published`,
    actor_entity_id: e.actor,
    principal_entity_id: null,
    subject_ref: refOf(e.kind, e.name, e.version),
    reason_code: `${e.kind}_published`,
    data: {
      [ID_MEMBER[e.kind]]: policyId(e.kind, e.name),
      version: e.version,
      ...(e.kind === 'rule_pack' ? { domain: e.domain } : {}),
      origin: e.origin,
      digest: e.digest,
      document_digest: digestOfCanonical(e.text),
    },
  });
}
