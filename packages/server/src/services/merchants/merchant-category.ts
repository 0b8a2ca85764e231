/**
 * A merchant category is an ISO 18245 MCC (four digits, compared as a string: "0742" is not "742") or a named
 * category in lower snake case. Compared as exact strings everywhere (CONTRACT section 11).
 */
export const MERCHANT_CATEGORY_PATTERN = '^([0-9]{4}|[a-z][a-z0-9_]{0,63})$';
export const MERCHANT_CATEGORY_RE = new RegExp(MERCHANT_CATEGORY_PATTERN);
