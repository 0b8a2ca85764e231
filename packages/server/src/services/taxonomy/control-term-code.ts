/**
 * The term code of a compliance control in the `compliance_control` dictionary: `psd3` + `PSR Art. 85` →
 * `psd3:psr_art_85` (a term code cannot hold spaces or brackets). Shared by the dictionary generator
 * (scripts/generate-dictionaries.ts) and the taxonomy query, so both name a control the same way.
 */
export function controlTermCode(framework: string, controlId: string): string {
  const slug = controlId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
  return `${framework}:${slug}`;
}
