/**
 * One statement for the same statement of several changes written in one group commit (backend.ts), its values still
 * bound parameters: a text whose parameters all sit in its `VALUES` list gets that list once per change, the
 * parameters of the k-th copy numbered past those of the copies before it. `INSERT INTO studies (project_id, id, doc)
 * VALUES ($1, $2, $3)` for three changes is one statement of three rows and nine values. A statement that is not an
 * insert is written over a `VALUES` list to be batched (`SELECT planted_take(v.t, ...) FROM (VALUES ($1::text, ...))
 * AS v(t, ...)`; the casts type its columns). Any other text is sent once per change.
 */

/** Where a text's `VALUES` list is, and how many parameters it has; null when it cannot be repeated. */
interface Form {
  before: string;
  rows: string;
  after: string;
  params: number;
}

const FORMS = new Map<string, Form | null>();
const MAX_FORMS = 1_000;

/** The end of the parenthesised group opening at `open`, skipping quoted literals; -1 when it does not close. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === "'") {
      i = text.indexOf("'", i + 1);
      if (i < 0) return -1;
    } else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  return -1;
}

function formOf(text: string): Form | null {
  const at = text.indexOf("VALUES (");
  if (at < 0) return null;
  const start = at + "VALUES ".length;
  // The list: parenthesised rows separated by commas.
  let end = closing(text, start);
  while (end > 0) {
    const next = /^\s*,\s*\(/.exec(text.slice(end + 1));
    if (!next) break;
    end = closing(text, end + next[0].length);
  }
  if (end < 0) return null;
  const before = text.slice(0, start);
  const rows = text.slice(start, end + 1);
  const after = text.slice(end + 1);
  // Every parameter must be in the list, or the copies would share one.
  if (/\$\d/.test(before) || /\$\d/.test(after)) return null;
  const numbers = [...rows.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]));
  if (numbers.length === 0) return null;
  return { before, rows, after, params: Math.max(...numbers) };
}

function cachedForm(text: string): Form | null {
  let form = FORMS.get(text);
  if (form === undefined) {
    form = formOf(text);
    if (FORMS.size < MAX_FORMS) FORMS.set(text, form);
  }
  return form;
}

/**
 * The statement `text` of every change in `valuesOf` (one array of values each, in order) as one statement with its
 * values bound, or null when the text cannot be repeated (then each change's is sent on its own).
 */
export function batched(text: string, valuesOf: unknown[][]): { text: string; values: unknown[] } | null {
  const form = cachedForm(text);
  if (form === null || valuesOf.some((v) => v.length !== form.params)) return null;
  const rows = valuesOf.map((_, k) => form.rows.replace(/\$(\d+)/g, (_m, n: string) => `$${Number(n) + k * form.params}`));
  return { text: `${form.before}${rows.join(", ")}${form.after}`, values: valuesOf.flat() };
}
