/**
 * Report schedules (docs/reports.md "Schedules"): `POST /v1/reports/schedules`, list, read, delete. A schedule is
 * per deployment (no principal): admin creates and deletes, admin and auditor read (routes/reports.ts; every route
 * also needs its `reports.*` scope).
 * Bad input is refused before anything is written: `every` more often than hourly (core parseEvery), an unknown or
 * repeated framework, a `starts_at` too far back or ahead, each 400 naming the field.
 * Creating and deleting each write the row, the event (`ns.report.scheduled` / `ns.report.schedule_deleted`) and its
 * audit entry in one write unit.
 */
import {
  AarError,
  defaultAnchor,
  fieldError,
  parseEvery,
  parseReportScheduleId,
  periodContaining,
  reportScheduleId,
  type Every,
} from '@aar/core';
import type { Selectable } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import type { ReportSchedulesTable } from '../../store/schema-reports.ts';
import { actorOf } from '../actor-of.ts';
import { appendEvent } from '../events/append-event.ts';
import { rulePackOf } from '../compliance/rule-pack-catalogue.ts';
import { toPage, type Page, type PageRequest } from '../../routes/pagination.ts';

const DAY_MS = 86_400_000;
/** how far back a schedule may start: its past periods are generated at once */
export const MAX_BACKFILL_MS = 31 * DAY_MS;
export const MAX_LEAD_MS = 366 * DAY_MS;

export interface ScheduleInput {
  every: string;
  frameworks?: string[];
  description?: string;
  starts_at?: string;
}

export interface ScheduleView {
  schedule_id: string;
  every: string;
  frameworks: string[];
  description: string | null;
  anchor: string | null;
  next_period: { start: string; end: string };
  created_at: string;
  deleted_at: string | null;
}

export type ScheduleRow = Selectable<ReportSchedulesTable>;

export function scheduleView(row: ScheduleRow): ScheduleView {
  return {
    schedule_id: row.schedule_id,
    every: row.every,
    frameworks: JSON.parse(row.frameworks) as string[],
    description: row.description,
    anchor: row.anchor,
    next_period: { start: row.next_start, end: row.next_end },
    created_at: row.created_at,
    deleted_at: row.deleted_at,
  };
}

/** The frameworks asked for, checked: each known (a rule pack serves it) and named once. */
export function checkFrameworks(frameworks: readonly string[] | undefined, path = '/frameworks'): string[] {
  const out = frameworks ?? [];
  out.forEach((f, i) => {
    rulePackOf(f, 'invalid_request', `${path}/${i}`);
    if (out.indexOf(f) !== i) throw fieldError('invalid_request', `${path}/${i}`, `\`${f}\` appears twice`);
  });
  return [...out];
}

function instant(value: string, path: string): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw fieldError('invalid_request', path, 'must be an RFC 3339 date-time');
  return date;
}

/** The schedule's every, anchor and first period, from its input and the creation instant. */
export function firstPeriod(every: Every, now: Date, startsAt: Date | undefined) {
  const from = startsAt ?? now;
  const anchor = every.kind === 'interval' ? (startsAt ?? defaultAnchor(now)) : null;
  return { anchor, period: periodContaining(every, from, anchor ?? from) };
}

export async function createSchedule(
  ctx: AppContext,
  credential: Credential | null,
  input: ScheduleInput,
): Promise<ScheduleView> {
  const every = parseEvery(input.every, '/every');
  const frameworks = checkFrameworks(input.frameworks);
  const now = ctx.clock.now();
  const startsAt = input.starts_at === undefined ? undefined : instant(input.starts_at, '/starts_at');
  if (startsAt && startsAt.getTime() < now.getTime() - MAX_BACKFILL_MS) {
    throw fieldError('invalid_request', '/starts_at', 'may be at most 31 days in the past');
  }
  if (startsAt && startsAt.getTime() > now.getTime() + MAX_LEAD_MS) {
    throw fieldError('invalid_request', '/starts_at', 'may be at most 366 days ahead');
  }
  const { anchor, period } = firstPeriod(every, now, startsAt);
  const row = {
    schedule_id: reportScheduleId(ctx.newUuid()),
    every: input.every,
    anchor: anchor?.toISOString() ?? null,
    frameworks: JSON.stringify(frameworks),
    description: input.description ?? null,
    next_start: period.start.toISOString(),
    next_end: period.end.toISOString(),
    created_by: credential?.token_id ?? 'system',
    created_at: now.toISOString(),
    deleted_at: null,
  };
  return ctx.writer.run(async (trx) => {
    // the event first: the row's created_at is the event's occurred_at (audit verify compares them)
    const scheduled = await appendEvent(trx, ctx, {
      event_type: 'ns.report.scheduled',
      actor_entity_id: actorOf(credential),
      principal_entity_id: null,
      subject_ref: row.schedule_id,
      reason_code: 'report_scheduled',
      data: {
        schedule_id: row.schedule_id,
        every: row.every,
        anchor: row.anchor,
        frameworks,
        first_period_start: row.next_start,
      },
    });
    const stored = await trx
      .insertInto('report_schedules')
      .values({ ...row, created_at: scheduled.occurred_at })
      .returningAll()
      .executeTakeFirstOrThrow();
    return scheduleView(stored);
  });
}

async function readRow(ctx: AppContext, id: string): Promise<ScheduleRow> {
  const row = await ctx.store.db
    .selectFrom('report_schedules')
    .selectAll()
    .where('schedule_id', '=', id)
    .executeTakeFirst();
  if (!row) throw new AarError('not_found', `report schedule \`${id}\` does not exist`);
  return row;
}

export async function getSchedule(ctx: AppContext, rawId: string): Promise<ScheduleView> {
  return scheduleView(await readRow(ctx, parseReportScheduleId(rawId, '/params/id')));
}

export async function listSchedules(ctx: AppContext, page: PageRequest): Promise<Page<ScheduleView>> {
  const rows = await ctx.store.db
    .selectFrom('report_schedules')
    .selectAll()
    .where('seq', '>', page.afterSeq)
    .orderBy('seq')
    .limit(page.limit + 1)
    .execute();
  return toPage(
    rows.map((r) => ({ ...r, seq: Number(r.seq) })),
    page.limit,
    scheduleView,
  );
}

/** Sets `deleted_at` once, with its event; deleting a deleted schedule answers it as it is and writes nothing. */
export async function deleteSchedule(
  ctx: AppContext,
  credential: Credential | null,
  rawId: string,
): Promise<ScheduleView> {
  const id = parseReportScheduleId(rawId, '/params/id');
  await readRow(ctx, id);
  return ctx.writer.run(async (trx) => {
    const current = await trx
      .selectFrom('report_schedules')
      .selectAll()
      .where('schedule_id', '=', id)
      .executeTakeFirstOrThrow();
    if (current.deleted_at !== null) return scheduleView(current);
    const deleted = await appendEvent(trx, ctx, {
      event_type: 'ns.report.schedule_deleted',
      actor_entity_id: actorOf(credential),
      principal_entity_id: null,
      subject_ref: id,
      reason_code: 'report_schedule_deleted',
      data: { schedule_id: id },
    });
    const updated = await trx
      .updateTable('report_schedules')
      .set({ deleted_at: deleted.occurred_at })
      .where('schedule_id', '=', id)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirstOrThrow();
    return scheduleView(updated);
  });
}
