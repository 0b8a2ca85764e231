import { AarError } from '@aar/core';

/** True when a database error is a unique-constraint violation, on SQLite or PostgreSQL. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  if (!e) return false;
  return e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** A unique violation becomes 409 `conflict` naming the field; any other error is returned unchanged, to rethrow. */
export function duplicateAsConflict(error: unknown, what: string, path: string): unknown {
  if (!isUniqueViolation(error)) return error;
  return new AarError('conflict', `${what} already exists`, { errors: [{ path, message: 'already exists' }] });
}
