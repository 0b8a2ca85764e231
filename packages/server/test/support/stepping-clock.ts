import type { Clock } from '../../src/clock.ts';

/** A clock tests can move: real time plus an offset. */
export class SteppingClock implements Clock {
  offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }
}
