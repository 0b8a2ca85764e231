/**
 * `aar rule-packs validate|test|publish FILE` (CONTRACT section 19): for policy authors working in git.
 * - `validate FILE`: the document's structure and profile (core validateRulePack), with the release's shipped
 *   dictionaries as what exists (obligation types, stop conditions, taxonomy terms, dictionary references); prints
 *   each problem as `<pointer>: <message>`. No store, no network.
 * - `test FILE`: validates, then runs the pack's own tests offline (core runPackTests) with the shipped dictionaries.
 * - `publish FILE --base-url URL [--token TOKEN]` (default token: AAR_TOKEN): stores the file as a draft (`POST /v1/rule-packs`) and publishes it
 *   (`POST .../publish`) over HTTP; the service validates and tests it again and signs it.
 * Exit status: 0 valid / passed / published, 1 a problem, a failing test or a refusal, 2 the file cannot be read or
 * the service cannot be reached.
 */
import { readFileSync } from 'node:fs';
import { CommanderError, type Command } from 'commander';
import {
  dictionarySnapshot,
  runPackTests,
  validateDictionary,
  validateRulePack,
  type DictionaryDocument,
  type DictionarySnapshot,
  type KnownPolicyTerms,
  type RulePackDocument,
} from '@aar/core';
import { readShippedContent } from '../services/policy/shipped-content.ts';

export function registerRulePackCommands(program: Command): void {
  const group = program.command('rule-packs').description('validate, test and publish rule pack files');
  group
    .command('validate')
    .description('check a rule pack file against the profile and the shipped dictionaries')
    .argument('<file>', 'an `ns.rule_pack.v1` JSON file')
    .action((file: string) => exit(validateFile(file)));
  group
    .command('test')
    .description("run a rule pack file's own tests offline")
    .argument('<file>', 'an `ns.rule_pack.v1` JSON file')
    .action((file: string) => exit(testFile(file)));
  group
    .command('publish')
    .description('draft and publish a rule pack file on a running service')
    .argument('<file>', 'an `ns.rule_pack.v1` JSON file')
    .requiredOption('--base-url <url>', 'the service, e.g. https://aar.example.com')
    .option('--token <token>', 'an admin API token (default: AAR_TOKEN, which keeps it out of the process list)')
    .action(async (file: string, flags: { baseUrl: string; token?: string }) => {
      const token = flags.token ?? process.env.AAR_TOKEN;
      if (!token) {
        process.stderr.write('aar: give an admin token with --token or AAR_TOKEN\n');
        return exit(2);
      }
      exit(await publishFile(file, { baseUrl: flags.baseUrl, token }));
    });
}

function exit(status: number): void {
  // main() turns a CommanderError into the process exit status
  if (status !== 0) throw new CommanderError(status, 'aar.rulePacks', status === 1 ? 'refused' : 'error');
}

function readDocument(file: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    process.stderr.write(`aar: \`${file}\` is not a JSON object\n`);
  } catch (error) {
    process.stderr.write(`aar: cannot read \`${file}\` as JSON: ${(error as Error).message}\n`);
  }
  return undefined;
}

/** The shipped dictionaries (valid ones), as snapshots by name and as what a pack may name. */
function shippedDictionaries(): { snapshots: Map<string, DictionarySnapshot>; known: KnownPolicyTerms } {
  const snapshots = new Map<string, DictionarySnapshot>();
  const refs = new Set<string>();
  for (const { document } of readShippedContent().get('dictionary') ?? []) {
    if (!document || validateDictionary(document).length > 0) continue;
    const doc = document as unknown as DictionaryDocument;
    const ref = `${doc.dictionary_id}@${doc.version}`;
    refs.add(ref);
    snapshots.set(ref, dictionarySnapshot(doc));
  }
  const codes = (name: string) => {
    const snapshot = [...snapshots.values()].filter((s) => s.dictionary_id === `ns:dictionary:${name}`).pop();
    return new Set(snapshot?.codes ?? []);
  };
  return {
    snapshots,
    known: {
      dictionaries: refs,
      obligationTypes: codes('obligation_type'),
      stopConditions: codes('stop_condition'),
      taxonomy: codes('rule_taxonomy'),
    },
  };
}

function validateFile(file: string): number {
  const doc = readDocument(file);
  if (!doc) return 2;
  const problems = validateRulePack(doc, shippedDictionaries().known);
  for (const p of problems) process.stdout.write(`${file}: ${p.pointer || '/'}: ${p.message}\n`);
  if (problems.length === 0) process.stdout.write(`${file}: valid\n`);
  return problems.length === 0 ? 0 : 1;
}

function testFile(file: string): number {
  const doc = readDocument(file);
  if (!doc) return 2;
  const { snapshots, known } = shippedDictionaries();
  const problems = validateRulePack(doc, known);
  if (problems.length > 0) {
    for (const p of problems) process.stdout.write(`${file}: ${p.pointer || '/'}: ${p.message}\n`);
    return 1;
  }
  const pack = doc as unknown as RulePackDocument;
  const dictionaries: Record<string, DictionarySnapshot> = {};
  for (const ref of pack.dictionaries ?? []) {
    const snapshot = snapshots.get(ref)!;
    dictionaries[snapshot.dictionary_id.slice('ns:dictionary:'.length)] = snapshot;
  }
  const report = runPackTests(pack, dictionaries);
  for (const r of report.results) {
    const actual = r.actual.reason ? `${r.actual.effect} (${r.actual.reason})` : r.actual.effect;
    process.stdout.write(
      `${r.passed ? 'PASS' : 'FAIL'} ${r.name}${r.passed ? '' : `: expected ${JSON.stringify(r.expected)}, got ${actual}`}\n`,
    );
  }
  process.stdout.write(`${file}: ${report.passed} passed, ${report.failed} failed\n`);
  return report.failed === 0 ? 0 : 1;
}

async function publishFile(file: string, flags: { baseUrl: string; token: string }): Promise<number> {
  const doc = readDocument(file);
  if (!doc) return 2;
  const base = flags.baseUrl.replace(/\/+$/, '');
  const post = async (path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${flags.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
  try {
    const draft = await post('/v1/rule-packs', doc);
    if (draft.status !== 201) return refused(file, draft.body);
    const name = String(draft.body.name);
    const version = String(draft.body.version);
    const published = await post(
      `/v1/rule-packs/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}/publish`,
    );
    if (published.status !== 200) return refused(file, published.body);
    process.stdout.write(`${JSON.stringify(published.body)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`aar: cannot reach \`${base}\`: ${(error as Error).message}\n`);
    return 2;
  }
}

function refused(file: string, problem: Record<string, unknown>): number {
  process.stderr.write(`aar: ${file}: ${String(problem.detail ?? problem.title ?? 'refused')}\n`);
  for (const e of (problem.errors as Array<{ path: string; message: string }> | undefined) ?? []) {
    process.stderr.write(`${file}: ${e.path || '/'}: ${e.message}\n`);
  }
  return 1;
}
