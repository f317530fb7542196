/**
 * A list's parameter given with an empty value, every run. A form or a generated client sends a field left blank as
 * `name=`, and a client that builds its query from an object with an empty string does too. Frameworks read it as
 * absent, as the empty string, or as a number: `parseInt("")` is NaN, and a range check that NaN slips through serves an
 * empty page; a service that stores a missing reference id or quality score as "" (a NOT NULL column, or a COALESCE in
 * its query) matches `reference_id=` to the interviews that have none. The seed gives no reading of an empty value, so
 * several are right: a 400, the parameter absent, for a filter the items the list shows with that empty value (none,
 * where it shows a missing one as null), and for a list's cursor an empty list (an unknown cursor may end a list).
 * Wrong is any other answer: a page of another size, or a part of the list the filter's value does not select. The
 * messages' cursor is stricter: the seed refuses one that is not a UUID, so there only a 400 or the first page is right.
 */
import { randomUUID } from "node:crypto";
import { completionWaitMs, untilCompleted } from "../judge/completion.ts";
import type { Unit } from "./unit.ts";
import { r } from "./rules.ts";
import { makeJudge, url } from "./repeated-params.ts";

const C = {
  limit: "limit= on every list",
  cursor: "starting_after= on every list",
  filters: "empty filters (study_id=, status=, reference_id=, quality_score=, a release's status=)",
} as const;


export const emptyValues: Unit = {
  name: "empty-values",
  doc: "limit= and starting_after= on every list, and study_id=, status=, reference_id=, quality_score= on the interviews (some without a reference id, some unscored) and status= on the releases: each refused with 400, read as absent, or (a filter) as selecting the items the list shows with an empty value, (a list's cursor) as ending the list; never a page of another size or a part of the list the value does not select",
  needs: ["plant-study"],
  rules: [r["empty-values"]],
  // Its reads and plants beside receiver-answers made a store that answers on its event loop (SQLite in WebAssembly)
  // send retries late on a loaded machine: it runs after the others, one alone unit at a time.
  alone: true,
  classes: (ctx) => [C.limit, C.cursor, ...(ctx.states.has("plant-interview", "hold", "complete") || ctx.states.has("plant-release") ? [C.filters] : [])],
  async run(env) {
    const { ctx } = env;
    const judge = makeJudge(env, r["empty-values"]);
    const lists: Array<{ what: string; path: string; base: string; messages?: boolean }> = [{ what: "studies", path: "/v1/studies", base: "" }];
    const { id: study } = await ctx.states.plantStudy({ name: "Empty values", weekly_limit: null, monthly_limit: null }, env.project);
    const interviews = ctx.states.has("plant-interview", "hold", "complete");
    if (interviews) {
      // One with a reference id, completed; one without, completed; one without, started (no quality score): a filter
      // whose empty value matches a missing one lists the last two, or the last.
      const tag = `ev${randomUUID().slice(0, 6)}`;
      const planted: Array<[string | undefined, boolean]> = [[tag, true], [undefined, true], [undefined, false]];
      const held = await Promise.all(planted.map(async ([reference_id, completed]) => ({ completed, id: (await ctx.states.plantInterview({ study_id: study, hold: true, ...(reference_id ? { reference_id } : {}) }, env.project)).id })));
      for (const h of held.filter((h) => h.completed)) await ctx.states.completeInterview(h.id, env.project);
      await Promise.all(held.filter((h) => h.completed).map((h) => untilCompleted(env.http, h.id, completionWaitMs(ctx.options))));
      lists.push({ what: "a study's interviews", path: "/v1/interviews", base: `study_id=${study}` });
    }
    if (ctx.states.has("plant-release")) {
      const at = Date.now() - 86_400_000;
      for (const [k, status] of (["active", "dismissed"] as const).entries()) await ctx.states.plantRelease({ vcs_pr_number: 800 + k, vcs_pr_title: `Empty values ${k + 1}`, status, merged_at: new Date(at + k * 1000).toISOString() }, env.project);
      lists.push({ what: "releases", path: "/v1/releases", base: "" });
    }
    if (ctx.states.has("plant-chat")) {
      const { id: chat } = await ctx.states.plantChat({ title: "Empty values", messages: [1, 2, 3].map((k) => ({ role: k % 2 ? ("user" as const) : ("assistant" as const), parts: [{ type: "text" as const, text: `message ${k}` }] })) }, env.project);
      lists.push({ what: "chats", path: "/v1/chats", base: "" }, { what: "a chat's messages", path: `/v1/chats/${chat}/messages`, base: "", messages: true });
    }

    let limits = true;
    let cursors = true;
    for (const list of lists) {
      const at = (...q: string[]) => url(list.path, list.base, ...q);
      limits = (await judge(list.what, at("limit="), [at()])) && limits;
      cursors = (await judge(list.what, at("starting_after="), [at()], undefined, list.messages ? undefined : () => false)) && cursors;
    }
    if (limits) env.reach(C.limit, r["empty-values"].cites);
    if (cursors) env.reach(C.cursor, r["empty-values"].cites);

    let filters = true;
    const judged: string[] = [];
    if (interviews) {
      const at = (...q: string[]) => url("/v1/interviews", `study_id=${study}`, ...q, "limit=100");
      for (const name of ["status", "reference_id", "quality_score"]) {
        filters = (await judge("a study's interviews", at(`${name}=`), [at()], undefined, (item) => item?.[name] === "")) && filters;
        judged.push(name);
      }
      // study_id= may also be read as a study that does not exist: answered as a UUID of nothing is.
      filters = (await judge("the interviews", url("/v1/interviews", "study_id=", "limit=100"), [url("/v1/interviews", "limit=100"), url("/v1/interviews", `study_id=${randomUUID()}`, "limit=100")], undefined, (item) => item?.study_id === "")) && filters;
    }
    if (ctx.states.has("plant-release")) {
      filters = (await judge("releases", url("/v1/releases", "status=", "limit=100"), [url("/v1/releases", "limit=100")], undefined, (item) => item?.status === "")) && filters;
      judged.push("a release's status");
    }
    if (judged.length && filters) env.reach(C.filters, r["empty-values"].cites);
  },
};
