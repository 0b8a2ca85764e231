/**
 * The write queue's group commit as the service reports it (`/metrics`: aar_write_batches_total and
 * aar_write_units_total, summed over the instances), read before and after a run: its mean batch size. Units of
 * every kind count (the scheduled checkpoint too), a handful against thousands of decisions.
 */
export interface WriteCounters {
  batches: number;
  units: number;
}

/** The counters of every instance, summed; undefined when one cannot be read (the note then shows `-`). */
export async function readWriteCounters(bases: readonly string[]): Promise<WriteCounters | undefined> {
  const total: WriteCounters = { batches: 0, units: 0 };
  for (const base of bases) {
    let text: string;
    try {
      const res = await fetch(`${base}/metrics`);
      if (!res.ok) return undefined;
      text = await res.text();
    } catch {
      return undefined;
    }
    const batches = counterValue(text, 'aar_write_batches_total');
    const units = counterValue(text, 'aar_write_units_total');
    if (batches === undefined || units === undefined) return undefined;
    total.batches += batches;
    total.units += units;
  }
  return total;
}

/** units per batch between two readings; undefined without both or without a batch */
export function unitsPerBatch(before: WriteCounters | undefined, after: WriteCounters | undefined): number | undefined {
  if (!before || !after || after.batches <= before.batches) return undefined;
  return (after.units - before.units) / (after.batches - before.batches);
}

function counterValue(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  const value = line === undefined ? NaN : Number(line.slice(name.length + 1));
  return Number.isFinite(value) ? value : undefined;
}
