/**
 * docs/events.md's catalogue table against the event catalogue (core/src/events/): one row per type and no row for
 * a type the service cannot emit, each with the catalogue's reason codes, `data` members (`?` exactly on the
 * optional ones), spec marker (★) and principal / actor presence. `test/api/event-types.test.ts` checks that every
 * type is mentioned; this checks that what the table says of it is still true.
 */
import { EVENT_CATALOGUE, type EnvelopeMemberPresence, type EventTypeDefinition } from '@aar/core';
import { describe, expect, it } from 'vitest';
import { codeSpans, readRepositoryFile, sectionOf, tableRows } from './markdown.ts';

interface EventRow {
  eventType: string;
  starred: boolean;
  reasonCell: string;
  dataCell: string;
  presence: string;
}

const PRESENCE_WORDS: Readonly<Record<EnvelopeMemberPresence, string>> = {
  always: 'set',
  never: 'null',
  sometimes: 'set or null',
};

function catalogueRows(): EventRow[] {
  const section = sectionOf(readRepositoryFile('docs/events.md'), '## The event catalogue: `GET /v1/event-types`');
  return tableRows(section).map((cells) => {
    expect(cells, `events.md row \`${cells[0]}\``).toHaveLength(5);
    const [typeCell, , reasonCell, dataCell, presence] = cells as [string, string, string, string, string];
    return {
      eventType: codeSpans(typeCell)[0] ?? typeCell,
      starred: typeCell.includes('★'),
      reasonCell,
      dataCell,
      presence,
    };
  });
}

function dataMembers(definition: EventTypeDefinition): { name: string; optional: boolean }[] {
  const schema = definition.data_schema as { properties?: Record<string, unknown>; required?: string[] };
  return Object.keys(schema.properties ?? {}).map((name) => ({ name, optional: !schema.required?.includes(name) }));
}

describe('docs/events.md catalogue table', () => {
  const rows = catalogueRows();
  const byType = new Map(EVENT_CATALOGUE.map((d) => [d.event_type, d]));

  it('has one row per catalogued type, in the catalogue order, and no other', () => {
    expect(rows.map((r) => r.eventType)).toEqual(EVENT_CATALOGUE.map((d) => d.event_type));
  });

  it('marks exactly the types the specification names', () => {
    for (const row of rows) expect(row.starred, row.eventType).toBe(byType.get(row.eventType)?.named_in_spec);
  });

  it("lists each type's reason codes", () => {
    for (const row of rows) {
      const definition = byType.get(row.eventType)!;
      const counted = /^the (\d+) `deny` reasons/.exec(row.reasonCell);
      if (counted) expect(Number(counted[1]), row.eventType).toBe(definition.reason_codes.length);
      else expect([...codeSpans(row.reasonCell)].sort(), row.eventType).toEqual([...definition.reason_codes].sort());
    }
  });

  it("lists each type's data members, `?` marking exactly the optional ones", () => {
    for (const row of rows) {
      const documented = [...row.dataCell.matchAll(/`([a-z0-9_]+)`(\?)?/g)].map((m) => ({
        name: m[1]!,
        optional: m[2] === '?',
      }));
      const sortByName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
      expect(documented.sort(sortByName), row.eventType).toEqual(
        dataMembers(byType.get(row.eventType)!).sort(sortByName),
      );
    }
  });

  it('says whether principal and actor are set, null, or either', () => {
    for (const row of rows) {
      const definition = byType.get(row.eventType)!;
      const expected = `${PRESENCE_WORDS[definition.principal_entity_id]} / ${PRESENCE_WORDS[definition.actor_entity_id]}`;
      expect(row.presence, row.eventType).toBe(expected);
    }
  });
});
