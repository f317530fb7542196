/**
 * Views of stored records are built once and reused until the record changes: most records never change
 * (fixtures), and the few that do (simulated interviews) are forgotten explicitly by whoever changes them.
 * Reusing the same view object also lets the serializer reuse its JSON text (http/serialize.ts).
 */
const views = new WeakMap<object, Map<string, unknown>>();
/** Every view built here: never changed in place, so its JSON text may be cached (http/serialize.ts). */
const immutable = new WeakSet<object>();

export const isMemoView = (value: object) => immutable.has(value);

export function memo<R extends object, V>(record: R, kind: string, build: (r: R) => V): V {
  let byKind = views.get(record);
  if (!byKind) views.set(record, (byKind = new Map()));
  let view = byKind.get(kind) as V | undefined;
  if (view === undefined) {
    byKind.set(kind, (view = build(record)));
    if (view !== null && typeof view === "object") immutable.add(view);
  }
  return view;
}

/** Drops every cached view of `record` after it changed. */
export function forget(record: object): void {
  views.delete(record);
}
