/**
 * `facts.local_time` (DESIGN-27 §3): the decision's instant in the principal's IANA time zone (UTC when the entity has
 * none), by the runtime's Intl (ICU), so decide reads it from the snapshot and replay never needs a zone database.
 * The zone was validated and canonicalised when the entity was registered (entities/time-zone.ts).
 */
import type { LocalTime } from '@aar/core';

const FORMATS = new Map<string, Intl.DateTimeFormat>();
const WEEKDAYS: Readonly<Record<string, number>> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

function formatOf(zone: string): Intl.DateTimeFormat {
  let format = FORMATS.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      weekday: 'short',
    });
    // bounded: one entry per zone a principal of this deployment has (at most the IANA list)
    if (FORMATS.size < 1024) FORMATS.set(zone, format);
  }
  return format;
}

export function localTimeOf(now: Date, zone: string | null): LocalTime {
  const name = zone ?? 'UTC';
  const parts: Record<string, string> = {};
  for (const part of formatOf(name).formatToParts(now)) parts[part.type] = part.value;
  return {
    zone: name,
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    weekday: WEEKDAYS[parts.weekday ?? ''] ?? 0,
    date: `${parts.year}-${parts.month}-${parts.day}`,
  };
}
