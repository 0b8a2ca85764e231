/**
 * A stored signed document read back for verify: the row must hold exactly its RFC 8785 bytes (what the service
 * wrote and signed), so a column edited to other bytes of the same JSON value is named as well as a changed value.
 * Undefined for anything else (not JSON, not an object, not canonical): the caller reports the document column.
 */
import { canonicalJson } from '@aar/core';

export function canonicalDocument(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null) return undefined;
    return canonicalJson(value) === text ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
