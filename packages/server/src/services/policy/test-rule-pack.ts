/**
 * `POST /v1/rule-packs/{name}/versions/{version}/test`: the pack's own tests (core `runPackTests`), with the
 * dictionaries it declares. Publishing runs the same and refuses a pack whose tests fail.
 */
import { AarError, runPackTests, type PackTestReport, type RulePackDocument } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { trustedDocument } from './document-integrity.ts';
import { knownTerms } from './known-terms.ts';
import { packDictionaries } from './pack-dictionaries.ts';
import { readVersion, type StoredDocumentRow } from './stored-documents.ts';
import { assertValidDocument } from './validate-document.ts';

export async function testRulePack(ctx: AppContext, name: string, version: string): Promise<PackTestReport> {
  const row = await requireVersion(ctx, name, version);
  const doc = await trustedDocument<RulePackDocument>(ctx, 'rule_pack', row);
  assertValidDocument('rule_pack', doc, await knownTerms(ctx, row.state !== 'draft'));
  return runPackTests(doc, await packDictionaries(ctx, doc.dictionaries ?? [], row.state !== 'draft'));
}

export async function requireVersion(ctx: AppContext, name: string, version: string): Promise<StoredDocumentRow> {
  const row = await readVersion(ctx.store.db, 'rule_pack', name, version);
  if (!row) throw new AarError('not_found', `rule pack \`${name}@${version}\` does not exist`);
  return row;
}

/** The failing tests of a report as problem+json (pointers `/tests/<i>`), for publish. */
export function testsFailed(report: PackTestReport): AarError {
  const failing = report.results.flatMap((r, i) =>
    r.passed
      ? []
      : [
          {
            path: `/tests/${i}`,
            message: `test \`${r.name}\` expects ${describe(r.expected)}, the pack gives ${describe(r.actual)}`,
          },
        ],
  );
  return new AarError('reference_invalid', `${report.failed} of the pack's tests fail: it cannot be published`, {
    errors: failing,
    extra: { tests: report },
  });
}

function describe(outcome: { effect?: unknown; reason?: unknown } | undefined): string {
  if (!outcome) return 'nothing';
  return outcome.reason === undefined
    ? `\`${String(outcome.effect)}\``
    : `\`${String(outcome.effect)}\` (\`${String(outcome.reason)}\`)`;
}
