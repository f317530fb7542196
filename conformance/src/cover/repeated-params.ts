/**
 * One query parameter given twice, or in a framework's bracket form, every run. The seed names each parameter once;
 * a client that builds its query from a map of lists, or appends to a URL it was given, sends some twice, and PHP, Rails
 * and `qs` clients write a list as `name[]=`. Frameworks read these as a list, the first or the last value, or the values
 * joined by commas; a service then checks one value and applies another, compares a list with a string, or takes NaN
 * for a limit. The seed gives no reading, so several are right: the request refused (400), or answered as the parameter
 * given once with one of its values, as a filter's values together (the items either matches), or with the bracket
 * form ignored. Wrong is an answer no reading gives: an empty page, a page of another size, the first page again, the
 * items a value made of both joined, or another project's interviews. The schema check sends these forms too, judging
 * only that none is a 5xx: the answers are predicted here, over lists of known items.
 */
import { randomUUID } from "node:crypto";
import type { Reply } from "../http.ts";
import type { Rule } from "../rules.ts";
import { untilCompleted, completionWaitMs } from "../judge/completion.ts";
import type { CoverEnv, Unit } from "./unit.ts";
import { r } from "./rules.ts";
import { strangerOf, strangerProject } from "./tenants.ts";

const C = {
  oneValue: "a filter given twice with one value",
  twoValues: "a filter given two values",
  limit: "limit given twice",
  cursor: "starting_after given twice",
  brackets: "bracket forms (limit[], status[], reference_id[])",
  studies: "study_id of this project given with another's, and with one of nothing",
} as const;

/** A list the unit planted at least three items of: its path and the query every request of it carries. */
interface Listed {
  what: string;
  path: string;
  base: string;
}

/** A path with the query parts given (empty ones left out). */
export const url = (path: string, ...query: string[]) => {
  const q = query.filter(Boolean).join("&");
  return q ? `${path}?${q}` : path;
};
const ids = (reply: Reply): unknown[] => (Array.isArray(reply.body?.data) ? reply.body.data.map((x: { id?: unknown }) => x?.id) : []);
/** What a reading is compared by: its status, and a list's items in order and has_more. */
const shape = (reply: Reply) => (reply.status === 200 ? `200 ${JSON.stringify(ids(reply))} has_more ${reply.body?.has_more}` : `${reply.status}`);
const told = (reply: Reply) => (reply.status === 200 ? `200 with ${ids(reply).length} items (has_more ${reply.body?.has_more})` : `${reply.status}`);

export const repeatedParams: Unit = {
  name: "repeated-params",
  doc: "each list's limit and starting_after given twice (one value twice, two values, one of them out of range), the interviews' filters and the releases' status given twice (one value, two values), study_id of this project beside another's and beside one of nothing, and bracket forms (limit[]=0, status[]=, reference_id[]=), over lists of known items: each refused with 400 or answered as one reading of it (the parameter given once with one of its values, a filter's values together, the bracket form ignored), never otherwise",
  needs: ["plant-study"],
  rules: [r["repeated-params"]],
  // Its reads and plants beside receiver-answers made a store that answers on its event loop (SQLite in WebAssembly)
  // send retries late on a loaded machine: it runs after the others, one alone unit at a time.
  alone: true,
  classes: (ctx) => {
    const interviews = ctx.states.has("plant-interview", "hold", "complete");
    return [C.limit, C.cursor, C.brackets, ...(interviews || ctx.states.has("plant-release") ? [C.oneValue, C.twoValues] : []), ...(interviews && strangerOf(ctx) ? [C.studies] : [])];
  },
  async run(env) {
    const { ctx } = env;
    const tag = `rp${randomUUID().slice(0, 6)}`;
    const lists: Listed[] = [{ what: "studies", path: "/v1/studies", base: "" }];
    for (let k = 0; k < 3; k++) await ctx.states.plantStudy({ name: `Repeated parameters ${k + 1}`, weekly_limit: null, monthly_limit: null }, env.project);
    const interviews = ctx.states.has("plant-interview", "hold", "complete");
    const { id: study } = await ctx.states.plantStudy({ name: "Repeated parameters, interviews", weekly_limit: null, monthly_limit: null }, env.project);
    // Reference ids x, y and the two joined by a comma (what a framework that joins repeated values would match), the
    // first of them completed and started: every filter's values select a known part of the study's interviews.
    const [x, y] = [`${tag}_x`, `${tag}_y`];
    if (interviews) {
      const planted: Array<[string, boolean]> = [[x, true], [y, true], [`${x},${y}`, true], [x, false]];
      const held = await Promise.all(planted.map(async ([reference_id, completed]) => ({ completed, id: (await ctx.states.plantInterview({ study_id: study, hold: true, reference_id }, env.project)).id })));
      for (const h of held.filter((h) => h.completed)) await ctx.states.completeInterview(h.id, env.project);
      await Promise.all(held.filter((h) => h.completed).map((h) => untilCompleted(env.http, h.id, completionWaitMs(ctx.options))));
      lists.push({ what: "a study's interviews", path: "/v1/interviews", base: `study_id=${study}` });
    }
    if (ctx.states.has("plant-release")) {
      const at = Date.now() - 86_400_000;
      for (const [k, status] of (["active", "active", "dismissed"] as const).entries()) await ctx.states.plantRelease({ vcs_pr_number: 700 + k, vcs_pr_title: `Repeated parameters ${k + 1}`, status, merged_at: new Date(at + k * 1000).toISOString() }, env.project);
      lists.push({ what: "releases", path: "/v1/releases", base: "" });
    }
    if (ctx.states.has("plant-chat")) {
      const text = (k: number) => ({ role: k % 2 ? "assistant" as const : "user" as const, parts: [{ type: "text" as const, text: `message ${k + 1}` }] });
      let chat = "";
      for (let k = 0; k < 3; k++) chat = (await ctx.states.plantChat({ title: `Repeated parameters ${k + 1}`, messages: Array.from({ length: 5 }, (_, j) => text(j)) }, env.project)).id;
      lists.push({ what: "chats", path: "/v1/chats", base: "" }, { what: "a chat's messages", path: `/v1/chats/${chat}/messages`, base: "" });
    }

    const judge = makeJudge(env);
    // limit and starting_after on every list: one value twice, two values (one of them out of range, either first), and
    // the bracket form of an out-of-range limit.
    let limits = true;
    let cursors = true;
    let brackets = true;
    for (const list of lists) {
      const at = (...q: string[]) => url(list.path, list.base, ...q);
      limits = (await judge(list.what, at("limit=2&limit=2"), [at("limit=2")])) && limits;
      limits = (await judge(list.what, at("limit=2&limit=3"), [at("limit=2"), at("limit=3")])) && limits;
      limits = (await judge(list.what, at("limit=2&limit=500"), [at("limit=2"), at("limit=500")])) && limits;
      limits = (await judge(list.what, at("limit=500&limit=2"), [at("limit=2"), at("limit=500")])) && limits;
      brackets = (await judge(list.what, at("limit[]=0"), [at(), at("limit=0")])) && brackets;
      const first = await env.req(at("limit=2"));
      const [a, b] = ids(first);
      if (first.status !== 200 || typeof a !== "string" || typeof b !== "string") {
        cursors = env.expect(r["repeated-params"], false, `GET ${at("limit=2")} answered ${told(first)}: the two items it must list (of the three or more planted) are missing, so starting_after given twice could not be judged`, first) && false;
        continue;
      }
      cursors = (await judge(list.what, at(`starting_after=${a}&starting_after=${a}`), [at(`starting_after=${a}`)])) && cursors;
      cursors = (await judge(list.what, at(`starting_after=${a}&starting_after=${b}`), [at(`starting_after=${a}`), at(`starting_after=${b}`)])) && cursors;
    }
    if (limits) env.reach(C.limit, r["repeated-params"].cites);
    if (cursors) env.reach(C.cursor, r["repeated-params"].cites);

    // Filters: one value twice is the filter given once; two values, either one or both together.
    let one = true;
    let two = true;
    const filters: Array<[Listed, string, string, string]> = [];
    if (interviews) {
      const iv = lists.find((l) => l.path === "/v1/interviews")!;
      filters.push([iv, "reference_id", x, y], [iv, "status", "completed", "started"], [iv, "quality_score", "insightful", "successful"]);
      brackets = (await judge(iv.what, url(iv.path, iv.base, "status[]=completed&limit=100"), [url(iv.path, iv.base, "limit=100"), url(iv.path, iv.base, "status=completed&limit=100")])) && brackets;
      brackets = (await judge(iv.what, url(iv.path, iv.base, `reference_id[]=${x}&limit=100`), [url(iv.path, iv.base, "limit=100"), url(iv.path, iv.base, `reference_id=${x}&limit=100`)])) && brackets;
    }
    const releases = lists.find((l) => l.path === "/v1/releases");
    if (releases) {
      filters.push([releases, "status", "active", "dismissed"]);
      brackets = (await judge(releases.what, url(releases.path, "status[]=dismissed&limit=100"), [url(releases.path, "limit=100"), url(releases.path, "status=dismissed&limit=100")])) && brackets;
    }
    for (const [list, name, a, b] of filters) {
      const at = (...q: string[]) => url(list.path, list.base, ...q, "limit=100");
      one = (await judge(list.what, at(`${name}=${a}&${name}=${a}`), [at(`${name}=${a}`)])) && one;
      two = (await judge(list.what, at(`${name}=${a}&${name}=${b}`), [at(`${name}=${a}`), at(`${name}=${b}`)], [at(`${name}=${a}`), at(`${name}=${b}`)])) && two;
    }
    if (filters.length && one) env.reach(C.oneValue, r["repeated-params"].cites);
    if (filters.length && two) env.reach(C.twoValues, r["repeated-params"].cites);
    if (brackets) env.reach(C.brackets, r["repeated-params"].cites);

    if (interviews) await studyIds(env, study, judge);
  },
};

export type Judge = (what: string, form: string, readings: string[], together?: string[], matching?: (item: any) => boolean) => Promise<boolean>;

/**
 * Judges the answer to `form` under `rule`: a 400, or the answer to one of `readings` (status, items in order,
 * has_more), or, given `together`, a 200 listing exactly the items of those lists combined (has_more false: each is
 * well under a page), or, given `matching`, a 200 listing exactly the items of the first reading's list that match
 * (a filter's value as the list shows its items: none, when no item has it).
 */
export function makeJudge(env: CoverEnv, rule: Rule = r["repeated-params"]): Judge {
  return async (what, form, readings, together, matching) => {
    const reply = await env.req(form);
    if (reply.status === 400) return true;
    const answers = await Promise.all(readings.map((u) => env.req(u)));
    if (answers.some((a) => shape(a) === shape(reply))) return true;
    if (matching && reply.status === 200 && reply.body?.has_more === false && answers[0]?.status === 200 && Array.isArray(answers[0].body?.data)) {
      const want = new Set(answers[0].body.data.filter(matching).map((x: { id?: unknown }) => x?.id));
      const got = ids(reply);
      if (got.length === want.size && got.every((id) => want.has(id))) return true;
    }
    if (together && reply.status === 200 && reply.body?.has_more === false) {
      const parts = await Promise.all(together.map((u) => env.req(u)));
      const all = new Set(parts.flatMap(ids));
      const got = ids(reply);
      if (parts.every((p) => p.status === 200) && got.length === all.size && got.every((id) => all.has(id))) return true;
    }
    const read = readings.map((u, k) => `${u}: ${told(answers[k])}`).join("; ");
    return env.expect(rule, false, `GET ${form} (${what}) answered ${told(reply)}: neither 400 nor any reading of it (${read}${together ? "; nor the items of those together" : ""}${matching ? "; nor the items of the first that match" : ""})`, reply);
  };
}

/**
 * study_id of this project's study beside another project's (and the reverse), and beside a UUID of nothing: each
 * answered as one of the two alone or both together, so never listing the other project's interviews (a service that
 * checks the first value's project and filters by the last lists them).
 */
async function studyIds(env: CoverEnv, study: string, judge: Judge): Promise<void> {
  const { ctx } = env;
  const stranger = await strangerProject(ctx, "Cover repeated-params, the other");
  let theirs: string | null = null;
  if (stranger) {
    theirs = (await ctx.states.plantStudy({ name: "Repeated parameters, the other project's", weekly_limit: null, monthly_limit: null }, stranger.b)).id;
    const held = (await ctx.states.plantInterview({ study_id: theirs, hold: true, reference_id: "repeated_params_theirs" }, stranger.b)).id;
    await ctx.states.completeInterview(held, stranger.b);
    await untilCompleted(stranger.http, held, completionWaitMs(ctx.options));
  }
  try {
    const at = (...q: string[]) => url("/v1/interviews", ...q, "limit=100");
    let ok = await judge("the interviews", at(`study_id=${study}&study_id=${study}`), [at(`study_id=${study}`)]);
    for (const other of [randomUUID(), ...(theirs ? [theirs] : [])]) {
      for (const [p, q] of [[study, other], [other, study]]) ok = (await judge("the interviews", at(`study_id=${p}&study_id=${q}`), [at(`study_id=${p}`), at(`study_id=${q}`)], [at(`study_id=${p}`), at(`study_id=${q}`)])) && ok;
    }
    if (!theirs) ctx.note("cover repeated-params: no second project (neither created nor --other-key): study_id beside another project's could not be sent; beside one of nothing it was");
    if (ok && theirs) env.reach(C.studies, r["repeated-params"].cites);
  } finally {
    stranger?.done();
  }
}
