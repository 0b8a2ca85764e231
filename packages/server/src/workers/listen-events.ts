/**
 * PostgreSQL only: wakes this instance when any instance commits events (the NOTIFY of migration 0008's trigger on
 * `events`, channel `aar_events_<schema>`). A lost connection is re-opened after a pause, waking once on reconnect
 * (a commit may have slipped by while it was down); polling covers the gap either way.
 */
import { sql } from 'kysely';
import pg from 'pg';
import type { AppContext } from '../app-context.ts';

const RECONNECT_MS = 1_000;

export async function listenForEvents(ctx: AppContext, onEvents: () => void): Promise<() => Promise<void>> {
  if (ctx.store.dialect !== 'postgres' || !ctx.config.databaseUrl) return async () => undefined;
  const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(ctx.store.db)).rows[0]?.s ?? 'public';
  const channel = `aar_events_${schema}`;
  let stopped = false;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    if (stopped) return;
    const c = new pg.Client({ connectionString: ctx.config.databaseUrl });
    const retry = () => {
      if (client === c) client = undefined;
      void c.end().catch(() => undefined);
      if (!stopped) timer = setTimeout(() => void connect(), RECONNECT_MS);
    };
    c.on('error', retry);
    c.on('notification', () => onEvents());
    try {
      await c.connect();
      await c.query(`listen "${channel.replaceAll('"', '""')}"`);
      if (stopped) {
        await c.end();
        return;
      }
      client = c;
      onEvents();
    } catch {
      retry();
    }
  };
  await connect();
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    const c = client;
    client = undefined;
    await c?.end().catch(() => undefined);
  };
}
