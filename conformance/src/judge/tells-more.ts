/**
 * Whether an answer about another project's id tells more than one about an id that never existed (Errors 1, and
 * "a caller only sees that project's data"): the isolation check's retrievals and the covering phase's tenants unit.
 */
import type { Reply } from "../http.ts";

/** A second id that never existed: what differs between its 404 and the first's is noise (a request id, a time). */
export const OTHER_NEVER_ID = "00000000-0000-4000-8000-0000000000f1";

/**
 * Where `leak`'s body differs from `none`'s at a place where `none` and `other` (two never-existing ids, ids replaced)
 * agree: the first such place, or "" when it tells nothing more. Bodies that are not JSON are compared whole.
 */
export function tellsMore(leak: string, none: string, other: string): string {
  const parse = (t: string): { ok: boolean; v: unknown } => {
    try {
      return { ok: true, v: JSON.parse(t) };
    } catch {
      return { ok: false, v: t };
    }
  };
  const [l, n, o] = [parse(leak), parse(none), parse(other)];
  if (!l.ok || !n.ok || !o.ok) return leak === none || none !== other ? "" : `its body ${JSON.stringify(leak.slice(0, 200))}, not ${JSON.stringify(none.slice(0, 200))}`;
  const isObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === "object" && !Array.isArray(x);
  const walk = (a: unknown, b: unknown, c: unknown, at: string): string => {
    if (isObject(a) && isObject(b) && isObject(c)) {
      for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
        const found = walk(a[k], b[k], c[k], `${at}/${k}`);
        if (found) return found;
      }
      return "";
    }
    if (JSON.stringify(b) !== JSON.stringify(c)) return ""; // noise here: two never-existing ids differ too
    return JSON.stringify(a) === JSON.stringify(b) ? "" : `${at || "the body"} is ${JSON.stringify(a)?.slice(0, 200)}, not ${JSON.stringify(b)?.slice(0, 200)}`;
  };
  return walk(l.v, n.v, o.v, "");
}

/**
 * Asks about `token` (another project's id, a key one character from a real one) and about two tokens of nothing in its
 * place, each answer with its own token left aside: `told` is what the first tells that an answer about nothing does
 * not ("" when nothing: the same status, and a body that differs only where the two about nothing differ too);
 * `identical`, whether its body is byte for byte the first one about nothing's.
 */
export async function askedAsNothing(ask: (token: string) => Promise<Reply>, token: string, nothing: readonly [string, string]): Promise<{ reply: Reply; none: Reply; told: string; identical: boolean }> {
  const [reply, none, other] = [await ask(token), await ask(nothing[0]), await ask(nothing[1])];
  const [a, b, c] = [reply.text.replaceAll(token, "<token>"), none.text.replaceAll(nothing[0], "<token>"), other.text.replaceAll(nothing[1], "<token>")];
  const told = reply.status !== none.status ? `it answered ${reply.status} where one about nothing is answered ${none.status}` : tellsMore(a, b, c);
  return { reply, none, told, identical: a === b };
}
