/**
 * isolation (--other-key): no id of one project is visible with the other project's key, in either
 * direction: a retrieval answers 404 (identical to that of an id that never existed), and no list contains it.
 */
import type { Check, Ctx } from "../check.ts";
import { NEVER_ID, snapshot } from "../data.ts";
import type { Http } from "../http.ts";
import { contract, rules, seed } from "../rules.ts";
import { askedAsNothing, OTHER_NEVER_ID } from "../judge/tells-more.ts";

const r = rules("isolation", {
  "retrieval-404": seed("Errors 1; Authentication 3", "retrieving another project's study, interview, release or chat (or its messages) answers 404", ["errors.retrieval-404", "auth.scope", "service.key-scope", "endpoints.get-study", "endpoints.get-interview", "endpoints.get-release", "endpoints.get-chat"]),
  lists: seed("Authentication 3: a key is scoped to a single project", "no list shows another project's items, and filtering by another project's study shows nothing", ["auth.scope", "service.key-scope"]),
  "same-404": seed("Errors 1: 404 when the id does not exist or belongs to another project; What the service does: a caller only sees that project's data", "the 404 for another project's id tells nothing a never-existing id's does not: the same body, the id aside and whatever two never-existing ids' bodies differ in (a request id, say)", ["errors.retrieval-404", "auth.scope", "service.key-scope"]),
  "identical-404": contract("isolation", "the 404 for another project's id is byte-identical to the 404 of an id that never existed"),
});

async function oneWay(ctx: Ctx, owner: Http, stranger: Http, label: string): Promise<void> {
  const mine = await snapshot(owner);
  const theirs = await snapshot(stranger);
  const resources: Array<[string, any[]]> = [["studies", mine.studies], ["interviews", mine.interviews], ["releases", mine.releases], ["chats", mine.chats]];
  for (const [resource, items] of resources) {
    for (const item of items.slice(0, 5)) {
      // Each body with its own id left aside.
      const { reply: leak, none, told, identical } = await askedAsNothing((id) => stranger.req(`/v1/${resource}/${id}`), item.id, [NEVER_ID, OTHER_NEVER_ID]);
      ctx.expect(r["retrieval-404"], leak.status === 404, `${label}: GET /v1/${resource}/${item.id} of the other project answered ${leak.status}`, leak);
      ctx.expect(r["same-404"], leak.status !== 404 || none.status !== 404 || !told, `${label}: the 404 for another project's ${resource} id tells what an id that never existed does not: ${told}`, leak, { foreign: leak.text, never: none.text });
      ctx.expect(r["identical-404"], identical, `${label}: the 404 for another project's ${resource} id differs from the 404 of an id that never existed`, leak, { foreign: leak.text, never: none.text });
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
