/**
 * isolation (--other-key): no id of one project is visible with the other project's key, in either
 * direction: a retrieval answers 404 (identical to that of an id that never existed), and no list contains it.
 */
import type { Check, Ctx } from "../check.ts";
import { NEVER_ID, snapshot } from "../data.ts";
import type { Http } from "../http.ts";
import { contract, rules, seed } from "../rules.ts";

const r = rules("isolation", {
  "retrieval-404": seed("Errors 1; Authentication 3", "retrieving another project's study, interview, release or chat (or its messages) answers 404", ["errors.retrieval-404", "auth.scope", "service.key-scope", "endpoints.get-study", "endpoints.get-interview", "endpoints.get-release", "endpoints.get-chat"]),
  lists: seed("Authentication 3: a key is scoped to a single project", "no list shows another project's items, and filtering by another project's study shows nothing", ["auth.scope", "service.key-scope"]),
  "same-404": seed("Errors 1: 404 when the id does not exist or belongs to another project; What the service does: a caller only sees that project's data", "the 404 for another project's id tells nothing a never-existing id's does not: the same body, the id aside and whatever two never-existing ids' bodies differ in (a request id, say)", ["errors.retrieval-404", "auth.scope", "service.key-scope"]),
  "identical-404": contract("isolation", "the 404 for another project's id is byte-identical to the 404 of an id that never existed"),
});

/** A second id that never existed: what differs between its 404 and the first's is noise (a request id, a time). */
const OTHER_NEVER_ID = "00000000-0000-4000-8000-0000000000f1";

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

async function oneWay(ctx: Ctx, owner: Http, stranger: Http, label: string): Promise<void> {
  const mine = await snapshot(owner);
  const theirs = await snapshot(stranger);
  const resources: Array<[string, any[]]> = [["studies", mine.studies], ["interviews", mine.interviews], ["releases", mine.releases], ["chats", mine.chats]];
  for (const [resource, items] of resources) {
    for (const item of items.slice(0, 5)) {
      const leak = await stranger.req(`/v1/${resource}/${item.id}`);
      const none = await stranger.req(`/v1/${resource}/${NEVER_ID}`);
      const other = await stranger.req(`/v1/${resource}/${OTHER_NEVER_ID}`);
      ctx.expect(r["retrieval-404"], leak.status === 404, `${label}: GET /v1/${resource}/${item.id} of the other project answered ${leak.status}`, leak);
      // Each body with its own id left aside.
      const [leakText, noneText] = [leak.text.replaceAll(item.id, "<id>"), none.text.replaceAll(NEVER_ID, "<id>")];
      const told = tellsMore(leakText, noneText, other.text.replaceAll(OTHER_NEVER_ID, "<id>"));
      ctx.expect(r["same-404"], leak.status !== 404 || none.status !== 404 || !told, `${label}: the 404 for another project's ${resource} id tells what an id that never existed does not: ${told}`, leak, { foreign: leak.text, never: none.text });
      ctx.expect(r["identical-404"], leakText === noneText, `${label}: the 404 for another project's ${resource} id differs from the 404 of an id that never existed`, leak, { foreign: leak.text, never: none.text });
    }
    const theirIds = new Set((theirs as any)[resource].map((x: any) => x.id));
    const leaked = items.find((x) => theirIds.has(x.id));
    ctx.expect(r.lists, !leaked, `${label}: ${resource} ${leaked?.id} appears in both projects' lists`, undefined, { resource, id: leaked?.id });
  }
  for (const chat of mine.chats.slice(0, 3)) {
    const reply = await stranger.req(`/v1/chats/${chat.id}/messages`);
    ctx.expect(r["retrieval-404"], reply.status === 404, `${label}: the other project's chat messages answered ${reply.status}`, reply);
  }
  // The deprecated report of the stranger's project names none of the owner's studies (it reports "all active
  // experiments" of the caller's project, whatever its body's shape).
  const report = await stranger.req("/v1/experiments");
  if (report.status === 200) {
    const named = mine.studies.filter((st: any) => report.text.includes(st.id)).map((st: any) => st.id);
    ctx.expect(r.lists, named.length === 0, `${label}: GET /v1/experiments names ${named.length} of the other project's studies (${named.slice(0, 3).join(", ")})`, report);
  }
  if (mine.studies[0]) {
    const reply = await stranger.req(`/v1/interviews?study_id=${mine.studies[0].id}`);
    ctx.expect(r.lists, reply.status !== 200 || reply.body.data.length === 0, `${label}: filtering interviews by the other project's study returned its interviews`, reply);
  }
}

export const isolationCheck: Check = {
  name: "isolation",
  description: "no id of one project is visible with the other project's key, in either direction",
  rules: r,
  needs: ["otherKey"],
  async run(ctx) {
    await oneWay(ctx, ctx.http, ctx.other!, "key B sees project A");
    await oneWay(ctx, ctx.other!, ctx.http, "key A sees project B");
  },
};
