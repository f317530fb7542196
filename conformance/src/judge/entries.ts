/** Finding a resource in a response whose shape the seed does not show (the deprecated experiments report). */

const holds = (v: unknown, id: string): boolean => v === id || (v !== null && typeof v === "object" && Object.values(v).some((x) => holds(x, id)));

/**
 * A resource's entry in a body of any shape: the outermost member of a list that holds its id anywhere, else the
 * object holding it; undefined when the id appears nowhere. A study is "in" a report exactly when this finds it.
 */
/**
 * A resource's entries in a report: our contract's shape lists them under `data` (each entry with its `id`); any other
 * shape is searched for the id (entryOf).
 */
export function entriesOf(body: unknown, id: string): unknown[] {
  const data = (body as { data?: unknown } | null)?.data;
  return Array.isArray(data) ? data.filter((e) => (e as { id?: unknown } | null)?.id === id) : [entryOf(body, id)].filter((e) => e !== undefined);
}

export function entryOf(body: unknown, id: string): unknown {
  if (body === null || typeof body !== "object") return undefined;
  if (Array.isArray(body)) {
    const entry = body.find((x) => holds(x, id));
    if (entry !== undefined) return entry;
  }
  for (const v of Object.values(body)) {
    const inner = entryOf(v, id);
    if (inner !== undefined) return inner;
  }
  return Object.values(body).includes(id) ? body : undefined;
}
