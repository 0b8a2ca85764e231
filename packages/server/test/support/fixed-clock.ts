import type { Clock } from '../../src/clock.ts';

/** A clock stopped at one instant: the server decides at exactly a vector's `now`. */
export function fixedClock(iso: string): Clock {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) throw new Error(`not a timestamp: ${iso}`);
  return { now: () => new Date(at) };
}
