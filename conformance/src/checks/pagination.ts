/**
 * pagination: on every list, walks with deterministic boundary limits (1, 100, the list's length and length
 * ± 1, divisors of the length, so a full last page is always tried) and random ones return each item exactly
 * once, in order, with an exact `has_more`; the default page is 20; bad limits and cursors are 400s; with
 * --sim, items created during a walk neither repeat nor hide the items that existed before it.
 */
import fc from "fast-check";
import type { Check, Ctx } from "../check.ts";
import { byHeadroom, messagesOf, NEVER_ID, snapshot } from "../data.ts";
import { CheckFailure, errorMessage, type Reply } from "../http.ts";
import { orderProblem, paginationRules, type ListSpec } from "../judge/pages.ts";
import type { Rule } from "../rules.ts";

const r = paginationRules;

async function lists(ctx: Ctx): Promise<ListSpec[]> {
  const s = await snapshot(ctx.http);
  const specs: ListSpec[] = [
    { path: "/v1/studies", key: "created_at", desc: true, seedOrder: false },
    // A target that needs study_id has no unfiltered interview list to page (the study's list below is paged).
    ...((await ctx.http.needsStudyId()) ? [] : [{ path: "/v1/interviews", key: "created_at", desc: true, seedOrder: false }]),
    { path: "/v1/releases", key: "merged_at", desc: true, seedOrder: true },
    { path: "/v1/chats", key: "created_at", desc: true, seedOrder: true },
  ];
  // The chats with the most messages make the longest message walks.
  const counts = await Promise.all(s.chats.slice(0, 30).map(async (c) => [c.id, (await messagesOf(ctx.http, c.id)).length] as const));
  for (const [id] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 3)) specs.push({ path: `/v1/chats/${id}/messages`, key: "created_at", desc: false, seedOrder: true });
  if (s.studies[0]) specs.push({ path: `/v1/interviews?study_id=${s.studies[0].id}`, key: "created_at", desc: true, seedOrder: false });
  return specs;
}

/** Boundary limits for a list of n items: 1, 100, n and n ± 1, and divisors of n (a full last page). */
export function boundaryLimits(n: number): number[] {
  const divisors: number[] = [];
  for (let d = 2; d <= Math.min(100, n); d++) if (n % d === 0) divisors.push(d);
  const picked = divisors.length <= 3 ? divisors : [divisors[0], divisors[Math.floor(divisors.length / 2)], divisors[divisors.length - 1]];
  return [...new Set([1, 100, n - 1, n, n + 1, ...picked])].filter((l) => l >= 1 && l <= 100).sort((a, b) => a - b);
}

/** Walks, turning a walk that cannot go on into a `walk-ends` failure. */
async function walk(ctx: Ctx, path: string, limit: number, maxPages?: number, fallback = false): Promise<{ items: any[]; pages: Reply[]; complete: boolean; limit: number } | null> {
  try {
    return await ctx.http.walk(path, limit, {}, maxPages, fallback);
  } catch (err) {
    if (!(err instanceof CheckFailure) || err.rule) throw err;
    ctx.expect(r["walk-ends"], false, err.message, err.reply);
    return null;
  }
}

function judgeWalk(ctx: Ctx, spec: ListSpec, limit: number, w: { items: any[]; pages: Reply[]; complete: boolean }, reference: string[]): void {
  const { items, pages } = w;
  const ids = items.map((i) => i.id);
  const where = `${spec.path} with limit=${limit}`;
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  ctx.expect(r["each-once"], !dup, `${where}: item ${dup} appears twice`, pages.find((p) => dup && p.text.includes(dup) && p !== pages[0]) ?? pages[pages.length - 1]);
  const expected = w.complete ? reference : reference.slice(0, ids.length);
  const missing = expected.filter((id) => !ids.includes(id));
  ctx.expect(r["each-once"], missing.length === 0, `${where}: ${missing.length} item(s) never returned, e.g. ${missing[0]}`, pages[pages.length - 1]);
  const extra = ids.filter((id) => !reference.includes(id));
  ctx.expect(r["each-once"], extra.length === 0, `${where}: item ${extra[0]} is not in the list walked with limit=100`, pages[pages.length - 1]);
  const orderRule: Rule = spec.seedOrder ? r.order : r["pinned-order"];
  const primary = orderProblem(items, spec, false);
  ctx.expect(orderRule, !primary, `${where}: ${primary}`, pages[0]);
  const tie = primary ? null : orderProblem(items, spec, true);
  ctx.expect(r.ties, !tie, `${where}: ${tie}`, pages[0]);
  pages.forEach((p, n) => {
    const last = n === pages.length - 1 && w.complete;
    if (last && p.body.data.length === 0 && n > 0) {
      ctx.expect(r["has-more"], false, `${where}: the walk ended on an empty page, so the previous page's has_more=true was wrong (${pages.length - 1} pages of ${limit} hold exactly ${ids.length} items)`, pages[n - 1]);
      return;
    }
    ctx.expect(r["has-more"], p.body.has_more === !last, `${where}: page ${n + 1} of ${pages.length} says has_more=${p.body.has_more}`, p);
    if (!last) ctx.expect(r["has-more"], p.body.data.length === limit, `${where}: page ${n + 1} has ${p.body.data.length} items, not ${limit}`, p);
  });
}

export const paginationCheck: Check = {
  name: "pagination",
  description: "boundary and random limits walk every list exactly once in order with an exact has_more; bad limits and cursors are 400s",
  rules: r,
  operations: ["listStudies", "listInterviews", "listReleases", "listChats", "listChatMessages"],
  async run(ctx) {
    const specs = await lists(ctx);
    const s = await snapshot(ctx.http);
    for (const spec of specs) {
      // The reference walk falls back to pages of 20 when limit=100 is refused, so the rest of the check still runs.
      const full = await walk(ctx, spec.path, 100, undefined, true);
      if (!full) continue;
      const reference = full.items.map((i: any) => i.id);
      judgeWalk(ctx, spec, full.limit, full, reference);
      const sep0 = spec.path.includes("?") ? "&" : "?";
      const max = await ctx.http.req(`${spec.path}${sep0}limit=100`);
      const maxOk = max.status === 200 && Array.isArray(max.body?.data) && max.body.data.length === Math.min(100, reference.length);
      ctx.expect(r["max-page-size"], maxOk, `${spec.path} with limit=100 answered ${max.status}${Array.isArray(max.body?.data) ? ` with ${max.body.data.length} items` : ""}; the seed's maximum page size is 100 (${reference.length} items in the list)`, max);
      const limits = boundaryLimits(reference.length).filter((l) => maxOk || l < 100);
      ctx.progress(`pagination: ${spec.path} (${reference.length} items), limits ${limits.join(", ")} and random ones`);
      for (const limit of limits) {
        // A limit-1 walk of a long list is capped at 1000 pages; the prefix is still judged.
        const w = await walk(ctx, spec.path, limit, 1000);
        if (w) judgeWalk(ctx, spec, limit, w, reference);
      }
      const runs = Math.max(3, Math.ceil(ctx.options.runs / 4));
      await ctx.holds(`walk ${spec.path}`, fc.integer({ min: 1, max: maxOk ? 100 : 99 }), async (limit) => {
        const w = await walk(ctx, spec.path, limit);
        if (w) judgeWalk(ctx, spec, limit, w, reference);
      }, runs);

      const first = await ctx.http.req(spec.path);
      ctx.conforms(first, `GET ${spec.path}`);
      ctx.expect(r["default-limit"], first.body?.data?.length === Math.min(20, reference.length), `${spec.path} without limit returned ${first.body?.data?.length} items, not the default 20 (or all ${reference.length})`, first);
      ctx.expect(r["has-more"], first.body?.has_more === reference.length > 20, `${spec.path} without limit says has_more=${first.body?.has_more} with ${reference.length} items`, first);

      const sep = spec.path.includes("?") ? "&" : "?";
      // The last item as the cursor: no page follows it, so the one asked for is empty, and has no more.
      const lastId = reference[reference.length - 1];
      if (lastId !== undefined) {
        const after = await ctx.http.req(`${spec.path}${sep}starting_after=${encodeURIComponent(lastId)}`);
        ctx.conforms(after, `GET ${spec.path} after its last item`);
        ctx.expect(r["has-more"], after.status === 200 && Array.isArray(after.body?.data) && after.body.data.length === 0 && after.body.has_more === false, `${spec.path} with its last item ${lastId} as starting_after answered ${after.status} with ${Array.isArray(after.body?.data) ? `${after.body.data.length} items` : "no list"} and has_more=${JSON.stringify(after.body?.has_more)}, not an empty page with has_more=false`, after);
      }
      for (const limit of ["0", "101", "-1", "1.5", "abc", ""]) {
        const reply = await ctx.http.req(`${spec.path}${sep}limit=${encodeURIComponent(limit)}`);
        ctx.expect(limit === "" ? r["limit-empty"] : r["limit-range"], reply.status === 400, `${spec.path} with limit=${JSON.stringify(limit)} answered ${reply.status}, not 400`, reply);
        ctx.conforms(reply, `limit=${limit}`);
      }
      const messages = spec.path.endsWith("/messages");
      // An id that exists, but in another list of the same project.
      const foreign = spec.path.startsWith("/v1/chats") || spec.path.startsWith("/_sim") ? s.interviews[0]?.id : s.chats[0]?.id ?? s.releases[0]?.id;
      // Each cursor with whether it is a UUID. A UUID with text after it or before it is not: a check that is not
      // anchored at both ends takes it.
      const cursors: Array<readonly [string, string | undefined, boolean]> = [["an unknown UUID", NEVER_ID, true], ["a non-UUID", "not-a-uuid", false], ["an id of another list", foreign, true]];
      if (messages) cursors.push(["a UUID followed by more text", `${NEVER_ID}0`, false], ["text followed by a UUID", `0${NEVER_ID}`, false]);
      for (const [what, cursor, uuid] of cursors) {
        if (!cursor) continue;
        const reply = await ctx.http.req(`${spec.path}${sep}starting_after=${cursor}`);
        if (messages) {
          const want = uuid ? `No such message: ${cursor}` : "Invalid parameters";
          ctx.expect(r["messages-cursor"], reply.status === 400 && errorMessage(reply.body) === want, `${spec.path} with ${what} as starting_after answered ${reply.status} ${JSON.stringify(errorMessage(reply.body))}, not 400 ${JSON.stringify(want)}`, reply);
        } else ctx.expect(r.cursor, reply.status === 400, `${spec.path} with ${what} as starting_after answered ${reply.status}, not 400`, reply);
        // Answered as a page instead (the seed does not say an unknown cursor is refused): an empty page has no more.
        if (reply.status === 200 && Array.isArray(reply.body?.data) && reply.body.data.length === 0) ctx.expect(r["has-more"], reply.body.has_more === false, `${spec.path} with ${what} as starting_after answered an empty page with has_more=${JSON.stringify(reply.body.has_more)}`, reply);
        ctx.conforms(reply, `starting_after=${cursor}`);
      }
    }
    if (ctx.other) {
      const theirs = await snapshot(ctx.other);
      const ours = (await snapshot(ctx.http)).studies[0]?.id;
      const interviews = (await ctx.http.needsStudyId()) && ours ? `/v1/interviews?study_id=${ours}&` : "/v1/interviews?";
      for (const [path, id] of [[interviews, theirs.interviews[0]?.id], ["/v1/chats?", theirs.chats[0]?.id]]) {
        if (!id) continue;
        const reply = await ctx.http.req(`${path}starting_after=${id}`);
        ctx.expect(r.cursor, reply.status === 400, `${path.slice(0, -1)} with another project's id as starting_after answered ${reply.status}, not 400`, reply);
      }
    } else ctx.untested("another project's ids as cursors", "needs --other-key");
    if (ctx.options.sim || ctx.options.states) await ctx.part("walks while interviews are created", () => walkWhileCreating(ctx));
    else ctx.untested("walks while interviews are created", "needs --sim");
  },
};

/** Starts a walk, creates interviews between its pages, and checks the items that existed before are all seen once. */
async function walkWhileCreating(ctx: Ctx): Promise<void> {
  const studies = (await ctx.http.walk("/v1/studies", 100)).items.filter((x: any) => x.accepting_responses).sort(byHeadroom);
  if (!studies.length) return ctx.untested("walks while interviews are created", "no study is accepting responses");
  // A target that needs study_id: the walk is of one study's list, and the interviews are created in it.
  const scoped = await ctx.http.needsStudyId();
  const list = scoped ? `/v1/interviews?study_id=${studies[0].id}&` : "/v1/interviews?";
  if (scoped) studies.splice(1);
  const before = (await ctx.http.walk(list.slice(0, -1), 100)).items.map((i: any) => i.id);
  const seen: string[] = [];
  const created: string[] = [];
  let after: string | undefined;
  for (let page = 0; page < 10_000; page++) {
    const reply = await ctx.http.req(`${list}limit=25${after ? `&starting_after=${after}` : ""}`);
    if (!ctx.must(r["walk-ends"], reply.status === 200, `a page of a walk answered ${reply.status}`, reply)) return;
    seen.push(...reply.body.data.map((i: any) => i.id));
    if (page < 3) {
      created.push((await ctx.states.plantInterview({ study_id: studies[page % studies.length].id, reference_id: "conformance_walk" })).id);
    }
    if (!reply.body.has_more) break;
    after = reply.body.data[reply.body.data.length - 1].id;
  }
  const dup = seen.find((id, i) => seen.indexOf(id) !== i);
  ctx.expect(r["stable-under-writes"], !dup, `an interview appeared twice in a walk during which interviews were created: ${dup}`);
  const missed = before.filter((id: string) => !seen.includes(id));
  ctx.expect(r["stable-under-writes"], missed.length === 0, `${missed.length} interview(s) that existed before the walk were skipped while interviews were created, e.g. ${missed[0]}`);
  // Let the simulated interviews finish, so later checks see a list that is not still changing.
  const deadline = Date.now() + 40_000;
  for (const id of created) {
    while ((await ctx.http.req(`/v1/interviews/${id}`)).body?.status !== "completed") {
      if (Date.now() > deadline) return ctx.note("pagination: interviews created during the walk had not completed after 40 s");
      await new Promise((res) => setTimeout(res, 50));
    }
  }
}
