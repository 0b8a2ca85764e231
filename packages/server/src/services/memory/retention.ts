/**
 * Retention by classification (docs/memory.md has the same table): the more sensitive the content, the shorter it is
 * kept. A record's `retain_until` is fixed when it is written (created_at + the days below) and signed into it; the
 * retention worker purges the content once the clock passes it. Changing this table changes new records only.
 */
import type { MemoryClassification } from '../../store/schema-memory.ts';

export const CLASSIFICATIONS: readonly MemoryClassification[] = ['public', 'internal', 'confidential', 'restricted'];

export const RETENTION_DAYS: Readonly<Record<MemoryClassification, number>> = {
  public: 730,
  internal: 365,
  confidential: 90,
  restricted: 30,
};

const DAY_MS = 24 * 3600 * 1000;

export function retainUntil(createdAt: Date, classification: MemoryClassification): Date {
  return new Date(createdAt.getTime() + RETENTION_DAYS[classification] * DAY_MS);
}
