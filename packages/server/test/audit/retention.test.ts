/**
 * Retention (SPEC "Limits": 10, 7 or 50 years per audit table): every write-once table has a class, and
 * docs/audit.md states the same class for every table the code lists, so the two cannot drift apart.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AUDIT_RETENTION } from '../../src/audit/retention.ts';
import { WRITE_ONCE_TABLES } from '../../src/store/migrations/0003-audit.ts';
import { WRITE_ONCE_EVIDENCE_TABLES } from '../../src/store/migrations/0004-evidence.ts';

const doc = readFileSync(new URL('../../../../docs/audit.md', import.meta.url), 'utf8');

/** table name -> years, from the rows of the "Retention" table of docs/audit.md */
function documentedClasses(): Map<string, number> {
  const section = doc.slice(doc.indexOf('## Retention'));
  const classes = new Map<string, number>();
  for (const line of section.split('\n')) {
    const match = /^\| (.+?) \| (\d+) years \|/.exec(line);
    if (!match) continue;
    for (const [, table] of match[1]!.matchAll(/`([a-z_]+)`/g)) classes.set(table!, Number(match[2]));
  }
  return classes;
}

describe('retention classes', () => {
  it('gives every write-once table a class of 7, 10 or 50 years', () => {
    for (const table of [...WRITE_ONCE_TABLES, ...WRITE_ONCE_EVIDENCE_TABLES]) {
      expect(AUDIT_RETENTION[table], table).toBeDefined();
    }
    for (const years of Object.values(AUDIT_RETENTION)) expect([7, 10, 50]).toContain(years);
  });

  it('documents the same class for each table in docs/audit.md', () => {
    expect(Object.fromEntries(documentedClasses())).toEqual(AUDIT_RETENTION);
  });
});
