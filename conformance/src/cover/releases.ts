/**
 * Releases planted and read back whole: each status; an empty description and author, a never-analysed release (null,
 * not a stand-in instant), text beyond ASCII with padding and a CRLF, a URL a parser writes otherwise; merge instants in another order than the planting
 * order (the list is newest `merged_at` first, not newest created) and two at one instant (each listed once wherever a
 * page boundary falls). The lists are read before the plants as after them (an answer kept from before misses them). Every read is predicted: the retrieval field by field, the list as the detail without its
 * description, the order, the status filter exactly, and a status in another case matching nothing.
 */
import fc from "fast-check";
import type { Reply } from "../http.ts";
import { caseTwins, otherCaseAnswer } from "../judge/other-case.ts";
import { propertySchema, stringDomain } from "./domain.ts";
import { tieProblem, walk } from "./tie-walk.ts";
import { fieldsDiffer, firstDifference } from "../judge/same.ts";
import type { CoverEnv, Unit } from "./unit.ts";
import { r } from "./rules.ts";
import type { PlantReleaseInput } from "../states/types.ts";

/**
 * A pull request URL a URL parser writes otherwise (the host's case, the scheme's default port, a dot segment, a
 * lowercase escape): the release links to the URL it was given, never to a rewriting of it.
 */
const REWRITTEN = "https://GitHub.com:443/Acme/App/pull/./6?tab=Files&q=%7e#Diff";
const URL_CLASS = "a URL a parser writes otherwise, kept as given";
const READ_AGAIN = "the list read before the plants and again after";

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** The fields of a planted release that read back as given (the rest are the implementation's choice). */
function predicted(id: string, input: PlantReleaseInput): Record<string, unknown> {
  return {
    id, object: "release", status: input.status ?? "active", vcs_pr_number: input.vcs_pr_number, vcs_pr_title: input.vcs_pr_title,
    ...(input.vcs_pr_description === undefined ? {} : { vcs_pr_description: input.vcs_pr_description }),
    ...(input.vcs_pr_author === undefined ? {} : { vcs_pr_author: input.vcs_pr_author }),
    ...(input.vcs_pr_url === undefined ? {} : { vcs_pr_url: input.vcs_pr_url }),
    ...(input.last_analysis_at === null ? { last_analysis_at: null } : {}),
  };
}

/** The instants a release reads back (merged, and analysed when planted at one), as numbers: formats of one instant agree. */
function instantsDiffer(body: any, input: PlantReleaseInput): string {
  const diffs: string[] = [];
  if (instant(body?.merged_at) !== instant(input.merged_at)) diffs.push(`/merged_at: got ${JSON.stringify(body?.merged_at)}, planted ${input.merged_at}`);
  if (typeof input.last_analysis_at === "string" && instant(body?.last_analysis_at) !== instant(input.last_analysis_at)) diffs.push(`/last_analysis_at: got ${JSON.stringify(body?.last_analysis_at)}, planted ${input.last_analysis_at}`);
  return diffs.join("; ");
}

/** A merge instant as a number (formats of one instant agree). */
const instant = (v: unknown) => (typeof v === "string" ? Date.parse(v) : NaN);

/** Reads a planted release back and judges it whole; returns the read and whether it was the release planted. */
async function readBack(env: CoverEnv, id: string, input: PlantReleaseInput): Promise<{ read: Reply; whole: boolean }> {
  const read = await env.req(`/v1/releases/${id}`);
  env.ctx.conforms(read, "GET /v1/releases/{id} (planted)");
  const want = predicted(id, input);
  const differs = read.status === 200 ? fieldsDiffer(read.body, want) || instantsDiffer(read.body, input) : `answered ${read.status}`;
  return { read, whole: env.expect(r["release-whole"], !differs, `GET /v1/releases/${id} (planted ${JSON.stringify(input).slice(0, 300)}) is not the release planted: ${differs}`, read) };
}

export const releases: Unit = {
  name: "releases",
  doc: "releases planted in each status, with an empty description and author, never analysed and analysed at a chosen instant, text beyond ASCII, a URL a parser writes otherwise (where the implementation plants URLs), merge instants out of planting order and two at one instant, the lists read before the plants and again after: each retrieval and list item predicted whole, the list newest merged_at first, the status filter exact (another case matches nothing)",
  needs: ["plant-release"],
  rules: [r["release-whole"]],
  classes: (ctx) => ["release active", "release dismissed", "description and author empty", "never analysed", "analysed at a chosen instant", "text beyond ASCII, padded, CRLF", "merged out of planting order", "two merged at one instant", "status in another case", READ_AGAIN, ...(ctx.states.has("release-url") ? [URL_CLASS] : [])],
  async run(env) {
    const { ctx } = env;
    // Days back, each at its own millisecond, planted in an order that is neither the list's nor its reverse (so a list
    // by creation, newest or oldest first, shows).
    const base = Math.floor(Date.now() / 1000) * 1000 - 30 * DAY;
    const at = (days: number, ms: number) => new Date(base + days * DAY + ms).toISOString();
    const plan: Array<{ cls: string[]; input: PlantReleaseInput }> = [
      { cls: ["release active", "description and author empty", "never analysed"], input: { vcs_pr_number: 1, vcs_pr_title: "Empty description and author", vcs_pr_description: "", vcs_pr_author: "", status: "active", merged_at: at(1, 1), last_analysis_at: null } },
      // Analysed an hour after its merge: the instant is planted, so a release served never analysed (or analysed at another
      // instant) shows.
      { cls: ["release dismissed", "text beyond ASCII, padded, CRLF", "analysed at a chosen instant"], input: { vcs_pr_number: 2147483647, vcs_pr_title: "  Ñandú e\u0301 😀 Release\t", vcs_pr_description: `Line one\r\nLine two e\u0301 😀 ${"x".repeat(3000)}`, vcs_pr_author: "Jdoe-ÄÖ", status: "dismissed", merged_at: at(9, 999), last_analysis_at: at(9, 999 + HOUR) } },
      { cls: ["two merged at one instant"], input: { vcs_pr_number: 3, vcs_pr_title: "Tie A", vcs_pr_description: "  padded  ", vcs_pr_author: "octo", status: "active", merged_at: at(5, 500) } },
      { cls: ["two merged at one instant"], input: { vcs_pr_number: 4, vcs_pr_title: "Tie B", vcs_pr_author: "OCTO", status: "dismissed", merged_at: at(5, 500), last_analysis_at: null } },
      { cls: [], input: { vcs_pr_number: 5, vcs_pr_title: "Oldest merged, planted last", status: "active", merged_at: at(0, 0) } },
      ...(ctx.states.has("release-url") ? [{ cls: [URL_CLASS], input: { vcs_pr_number: 6, vcs_pr_title: "A URL of its own", vcs_pr_url: REWRITTEN, status: "active" as const, merged_at: at(3, 300) } }] : []),
    ];
    // The lists read once before anything is planted, by the very requests that read them after: a list kept from an
    // earlier answer (a cache) then misses the releases planted since.
    const LISTS = ["/v1/releases", "/v1/releases?status=active", "/v1/releases?status=dismissed"];
    for (const path of LISTS) await env.http.walk(path, 100);
    const planted: Array<{ id: string; input: PlantReleaseInput; cls: string[] }> = [];
    for (const p of plan) planted.push({ ...p, id: (await ctx.states.plantRelease(p.input, env.project)).id });
    const mine = new Set(planted.map((p) => p.id));
    // Each retrieval, predicted whole; its chat is release-generated, so never shown.
    const details = new Map<string, any>();
    for (const p of planted) {
      const { read, whole } = await readBack(env, p.id, p.input);
      if (read.status === 200 && typeof read.body?.chat_id === "string") {
        const chat = await env.req(`/v1/chats/${encodeURIComponent(read.body.chat_id)}`);
        env.expect(r["release-whole"], chat.status === 404, `release ${p.id}'s chat ${read.body.chat_id} (release-generated) answers ${chat.status} on GET /v1/chats/{id}, not 404`, chat);
      }
      if (whole) for (const c of p.cls.filter((c) => c !== "two merged at one instant")) env.reach(c, r["release-whole"].cites);
      if (read.status === 200) details.set(p.id, read.body);
    }
    // The list: each planted release once, as its detail without the description, newest merged_at first.
    const listing = await env.http.walk(LISTS[0], 100);
    const all: any[] = listing.items;
    const listed = all.filter((x) => mine.has(x.id));
    const byId = new Map(planted.map((p) => [p.id, p]));
    for (const item of listed) {
      const detail = details.get(item.id);
      if (!detail) continue;
      const { vcs_pr_description: _d, ...summary } = detail;
      const differs = firstDifference(item, summary);
      env.expect(r["release-whole"], !differs, `GET /v1/releases lists release ${item.id} unlike its retrieval without vcs_pr_description: ${differs}`, listing.pages[0]);
    }
    const ids = listed.map((x) => x.id);
    if (env.expect(r["release-whole"], ids.length === planted.length && new Set(ids).size === planted.length && (!env.own || all.length === planted.length), `GET /v1/releases lists ${ids.length} of the ${planted.length} releases planted (${new Set(ids).size} distinct)${env.own ? `, and ${all.length} in all in a project holding only those` : ""}, read again after it was read before they were planted`, listing.pages[0])) env.reach(READ_AGAIN, r["release-whole"].cites);
    const descending = (items: any[]) => items.every((x, k) => k === 0 || instant(items[k - 1].merged_at) >= instant(x.merged_at));
    // The planted ones are among them: the whole list in order holds them in order.
    const order = env.expect(r["release-whole"], descending(all), `GET /v1/releases is not newest merged_at first: ${all.map((x) => `${x.id.slice(0, 8)}@${x.merged_at}`).join(", ").slice(0, 600)}`, listing.pages[0]);
    if (order && ids.length === planted.length) env.reach("merged out of planting order", r["release-whole"].cites);
    // The tie, at every page size up to the tie's, from the release listed just before it to the one just after it:
    // each listed exactly once wherever a page boundary falls among them, none of another among them.
    const tie = planted.filter((p) => p.cls.includes("two merged at one instant")).map((p) => p.id);
    const first = all.findIndex((x) => tie.includes(x.id));
    const [before, after] = [all[first - 1]?.id, all[first + tie.length]?.id];
    let tieOk = first >= 0;
    for (const limit of [1, 2]) {
      const w = await walk(env, "/v1/releases", limit, before, after, tie.length + 3);
      const problem = w.broken ?? tieProblem(w.ids, tie, after);
      tieOk = env.expect(r["release-whole"], !problem, `GET /v1/releases walked at limit ${limit} from the release just before the two merged at one instant (starting_after=${before ?? "none"}): ${problem}; listed ${JSON.stringify(w.ids)}`, w.pages[w.pages.length - 1]) && tieOk;
    }
    if (tieOk) env.reach("two merged at one instant", r["release-whole"].cites);
    // The status filter: exactly the planted ones in that status, in the list's order; another case is another value.
    for (const status of ["active", "dismissed"] as const) {
      const filtered = await env.http.walk(LISTS[status === "active" ? 1 : 2], 100);
      const got = filtered.items.filter((x: any) => mine.has(x.id)).map((x: any) => x.id);
      const want = ids.filter((id) => (byId.get(id)!.input.status ?? "active") === status);
      const stray = filtered.items.find((x: any) => x.status !== status);
      env.expect(r["release-whole"], JSON.stringify(got) === JSON.stringify(want) && !stray, `GET /v1/releases?status=${status} lists ${JSON.stringify(got)} of the planted releases, not exactly ${JSON.stringify(want)} in the list's order${stray ? `, and release ${stray.id} in status ${JSON.stringify(stray.status)}` : ""}`, filtered.pages[0]);
      for (const twin of caseTwins(status)) {
        const reply = await env.req(`/v1/releases?status=${twin}`);
        const { ok, items } = otherCaseAnswer(reply);
        if (env.expect(r["release-whole"], ok, `GET /v1/releases?status=${twin} answers ${reply.status}${items.length ? ` listing ${items.length} release(s), ${items.filter((x) => mine.has(x.id)).length} of them planted ${status}` : ""}: no release is in status ${JSON.stringify(twin)}`, reply)) env.reach("status in another case", r["release-whole"].cites);
      }
    }
  },
  async explore(env) {
    await drawn(env);
  },
};

/** Titles, descriptions and authors drawn from the contract's domain of each: each planted and read back exactly. */
async function drawn(env: CoverEnv): Promise<void> {
  const { ctx } = env;
  const field = (name: string, min: number) => stringDomain(propertySchema(ctx.contract, "SimReleaseInput", name), min);
  const arb = fc.record({ title: field("vcs_pr_title", 1), description: fc.oneof(fc.constant(""), field("vcs_pr_description", 0)), author: fc.oneof(fc.constant(""), field("vcs_pr_author", 0)) });
  let n = 10;
  await ctx.holds("release text drawn from the contract's domain", arb, async ({ title, description, author }) => {
    const input: PlantReleaseInput = { vcs_pr_number: n++, vcs_pr_title: title, vcs_pr_description: description, vcs_pr_author: author, merged_at: new Date(Date.now() - DAY).toISOString() };
    const { id } = await ctx.states.plantRelease(input, env.project);
    await readBack(env, id, input);
  }, ctx.options.runs);
}
