/** What a person types in an entity filter: `shopper-1` is read as an agent (`alice` as a person), a full id as itself. */
export function entityOrAgent(text: string): string | undefined {
  const t = text.trim();
  return t === '' ? undefined : t.startsWith('ns:') ? t : `ns:entity:agent:${t}`;
}

export function entityOrPerson(text: string): string | undefined {
  const t = text.trim();
  return t === '' ? undefined : t.startsWith('ns:') ? t : `ns:entity:person:${t}`;
}
