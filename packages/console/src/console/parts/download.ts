/**
 * Saves a document the console already holds as a file: a Blob behind an object URL, clicked through a temporary
 * link with `download` (the page's CSP allows no inline script and the token must not ride in a URL, so the console
 * fetches with its bearer token and hands the browser the bytes). The URL is revoked once the click has been handled.
 */
export function downloadJson(fileName: string, value: unknown): void {
  downloadText(fileName, `${JSON.stringify(value, null, 2)}\n`, 'application/json');
}

export function downloadText(fileName: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** A file name from an id (`ns:compliance_report:0190…` -> `compliance_report-0190…`), safe on every platform. */
export function fileNameFor(id: string, suffix: string): string {
  const base = id.replace(/^ns:/, '').replace(/[^A-Za-z0-9._-]+/g, '-');
  return `${base}${suffix}`;
}
