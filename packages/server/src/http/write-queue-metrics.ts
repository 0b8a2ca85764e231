/**
 * The write queue's group commit in Prometheus counters: batches run and units run, so `rate(units) / rate(batches)`
 * is the mean batch size. On PostgreSQL each batch pays a fixed number of round trips (its audit tip's read and its
 * COMMIT), so a small mean batch under load says where the time goes; with several instances on one hot grant,
 * the instances take turns on its spend row and each batch holds fewer units.
 * Read from the queue when scraped: nothing is counted on the write path.
 */
import { Counter, type Registry } from 'prom-client';
import type { WriteQueue } from '../store/write-queue.ts';

/** A counter that reports `read()` when scraped (a total kept elsewhere, never decreasing). */
function totalCounter(registry: Registry, name: string, help: string, read: () => number): void {
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

export function registerWriteQueueMetrics(registry: Registry, writer: WriteQueue): void {
  totalCounter(
    registry,
    'aar_write_batches_total',
    'Write batches (transactions of the write queue) committed or failed',
    () => writer.batches,
  );
  totalCounter(
    registry,
    'aar_write_units_total',
    'Units of work run by the write queue (each a state change in its own savepoint)',
    () => writer.units,
  );
}
