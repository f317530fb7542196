/**
 * pagination: on every list, any `limit` in 1..100 walks the whole list with each item exactly once, in the
 * documented order, with an exact `has_more`; the default page is 20; bad limits and cursors are 400s; with
 * --sim, items created during a walk neither repeat nor hide the items that existed before it.
 */
import fc from "fast-check";
import { conforms, holds, type Check, type Ctx } from "../check.ts";
import { messagesOf, NEVER_ID, snapshot } from "../data.ts";
import { CheckFailure, expectThat, type Reply } from "../http.ts";

interface ListSpec {
  path: string;
  /** Timestamp field and direction of the documented order; ties are broken by id in the same direction. */
  key: string;
  desc: boolean;
}

export function orderProblem(items: any[], spec: ListSpec): string | null {
  for (let i = 1; i < items.length; i++) {
    const a = items[i - 1];
    const b = items[i];
    const cmp = a[spec.key] < b[spec.key] ? -1 : a[spec.key] > b[spec.key] ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    if (spec.desc ? cmp <= 0 : cmp >= 0) {
      return `items ${i - 1} and ${i} are out of order (${spec.key} ${spec.desc ? "descending" : "ascending"}, ties by id in the same direction): ${a.id} ${a[spec.key]} then ${b.id} ${b[spec.key]}`;
    }
  }
  return null;
}

async function lists(ctx: Ctx): Promise<ListSpec[]> {
  const s = await snapshot(ctx.http);
  const specs: ListSpec[] = [
    { path: "/v1/studies", key: "created_at", desc: true },
    { path: "/v1/interviews", key: "created_at", desc: true },
    { path: "/v1/releases", key: "merged_at", desc: true },
    { path: "/v1/chats", key: "created_at", desc: true },
  ];
  // The chats with the most messages make the longest message walks.
  const counts = await Promise.all(s.chats.slice(0, 30).map(async (c) => [c.id, (await messagesOf(ctx.http, c.id)).length] as const));
  for (const [id] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 3)) specs.push({ path: `/v1/chats/${id}/messages`, key: "created_at", desc: false });
  if (s.studies[0]) specs.push({ path: `/v1/interviews?study_id=${s.studies[0].id}`, key: "created_at", desc: true });
  if (ctx.options.sim) specs.push({ path: "/_sim/webhook-deliveries", key: "scheduled_at", desc: false });
  return specs;
}

function checkWalk(spec: ListSpec, limit: number, items: any[], pages: Reply[], reference: string[]): void {
  const ids = items.map((i) => i.id);
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup) throw new CheckFailure(`${spec.path} with limit=${limit}: item ${dup} appears twice`, { reply: pages.find((p) => p.text.includes(dup) && p !== pages[0]) ?? pages[pages.length - 1] });
  const missing = reference.filter((id) => !ids.includes(id));
  if (missing.length) throw new CheckFailure(`${spec.path} with limit=${limit}: ${missing.length} item(s) never returned, e.g. ${missing[0]}`, { reply: pages[pages.length - 1] });
  const extra = ids.filter((id) => !reference.includes(id));
  if (extra.length) throw new CheckFailure(`${spec.path} with limit=${limit}: item ${extra[0]} not in the list walked with limit=100`, { reply: pages[pages.length - 1] });
  const order = orderProblem(items, spec);
  if (order) throw new CheckFailure(`${spec.path} with limit=${limit}: ${order}`, { reply: pages[0] });
  pages.forEach((p, n) => {
    const last = n === pages.length - 1;
    if (p.body.has_more !== !last) throw new CheckFailure(`${spec.path} with limit=${limit}: page ${n + 1} of ${pages.length} says has_more=${p.body.has_more}${last && p.body.data.length === 0 ? " (an empty last page after a full one means has_more was wrong)" : ""}`, { reply: last && n > 0 ? pages[n - 1] : p });
    if (!last && p.body.data.length !== limit) throw new CheckFailure(`${spec.path} with limit=${limit}: page ${n + 1} has ${p.body.data.length} items, not ${limit}`, { reply: p });
    if (last && p.body.data.length === 0 && n > 0) throw new CheckFailure(`${spec.path} with limit=${limit}: the walk ended on an empty page, so the previous page's has_more=true was wrong`, { reply: pages[n - 1] });
  });
}

export const paginationCheck: Check = {
  name: "pagination",
  description: "any limit walks every list exactly once in the documented order with an exact has_more; bad limits and cursors are 400s",
  async run(ctx) {
    const specs = await lists(ctx);
    const s = await snapshot(ctx.http);
    for (const spec of specs) {
      const reference = (await ctx.http.walk(spec.path, 100)).items.map((i: any) => i.id);
      ctx.progress(`pagination: ${spec.path} (${reference.length} items)`);
      const runs = Math.max(3, Math.ceil(ctx.options.runs / 4));
      await holds(ctx, `walk ${spec.path}`, fc.integer({ min: 1, max: 100 }), async (limit) => {
        const { items, pages } = await ctx.http.walk(spec.path, limit);
        checkWalk(spec, limit, items, pages, reference);
      }, runs);

      const first = await ctx.http.req(spec.path);
      conforms(ctx, first, `GET ${spec.path}`);
      expectThat(first.body.data.length === Math.min(20, reference.length), `${spec.path} without limit returned ${first.body.data.length} items, not the default 20 (or all ${reference.length})`, first);
      expectThat(first.body.has_more === reference.length > 20, `${spec.path} without limit says has_more=${first.body.has_more} with ${reference.length} items`, first);

      const sep = spec.path.includes("?") ? "&" : "?";
      for (const limit of ["0", "101", "-1", "1.5", "abc", ""]) {
        const reply = await ctx.http.req(`${spec.path}${sep}limit=${encodeURIComponent(limit)}`);
        expectThat(reply.status === 400, `${spec.path} with limit=${JSON.stringify(limit)} answered ${reply.status}, not 400`, reply);
        conforms(ctx, reply, `limit=${limit}`);
      }
      // An id that exists, but in another list of the same project.
      const foreign = spec.path.startsWith("/v1/chats") || spec.path.startsWith("/_sim") ? s.interviews[0]?.id : s.chats[0]?.id ?? s.releases[0]?.id;
      for (const [what, cursor] of [["an unknown UUID", NEVER_ID], ["a non-UUID", "not-a-uuid"], ["an id of another list", foreign]] as const) {
        if (!cursor) continue;
        const reply = await ctx.http.req(`${spec.path}${sep}starting_after=${cursor}`);
        expectThat(reply.status === 400, `${spec.path} with ${what} as starting_after answered ${reply.status}, not 400`, reply);
        conforms(ctx, reply, `starting_after=${cursor}`);
      }
    }
    if (ctx.other) {
      const theirs = await snapshot(ctx.other);
      for (const [path, id] of [["/v1/interviews", theirs.interviews[0]?.id], ["/v1/chats", theirs.chats[0]?.id]]) {
        if (!id) continue;
        const reply = await ctx.http.req(`${path}?starting_after=${id}`);
        expectThat(reply.status === 400, `${path} with another project's id as starting_after answered ${reply.status}, not 400`, reply);
      }
    }
    if (ctx.options.sim) await walkWhileCreating(ctx);
  },
};

/** Starts a walk, creates interviews between its pages, and checks the items that existed before are all seen once. */
async function walkWhileCreating(ctx: Ctx): Promise<void> {
  const s = await snapshot(ctx.http);
  const studies = (await ctx.http.walk("/v1/studies", 100)).items.filter((x: any) => x.accepting_responses);
  if (!studies.length) return ctx.note("pagination during writes: no study accepting responses, not checked");
  const before = (await ctx.http.walk("/v1/interviews", 100)).items.map((i: any) => i.id);
  const seen: string[] = [];
  const created: string[] = [];
  let after: string | undefined;
  for (let page = 0; page < 10_000; page++) {
    const reply = await ctx.http.req(`/v1/interviews?limit=25${after ? `&starting_after=${after}` : ""}`);
    seen.push(...reply.body.data.map((i: any) => i.id));
    if (page < 3) {
      const made = await ctx.http.req("/_sim/interviews", { method: "POST", body: { study_id: studies[page % studies.length].id, reference_id: "conformance_walk" } });
      expectThat(made.status === 201, `POST /_sim/interviews answered ${made.status}`, made);
      created.push(made.body.id);
    }
    if (!reply.body.has_more) break;
    after = reply.body.data[reply.body.data.length - 1].id;
  }
  const dup = seen.find((id, i) => seen.indexOf(id) !== i);
  expectThat(!dup, `an interview appeared twice in a walk during which interviews were created: ${dup}`);
  const missed = before.filter((id: string) => !seen.includes(id));
  expectThat(missed.length === 0, `${missed.length} interview(s) that existed before the walk were skipped while interviews were created, e.g. ${missed[0]}`);
  // Let the simulated interviews finish, so later checks see a list that is not still changing.
  const deadline = Date.now() + 40_000;
  for (const id of created) {
    while ((await ctx.http.req(`/v1/interviews/${id}`)).body?.status !== "completed") {
      if (Date.now() > deadline) return ctx.note("pagination: interviews created during the walk had not completed after 40 s");
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  void s;
}
