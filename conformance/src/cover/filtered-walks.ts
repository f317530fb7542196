/**
 * Filters held on every page, every run. A filtered list read at 100 per page fits on its first page, where a filter
 * applied only without a cursor (or a cursor looked up among the unfiltered items) still looks right; walked one item
 * per page, every page after the first depends on it. So the unit plants interviews across two studies, in two
 * statuses, under two reference ids, completed ones sharing a quality score, and releases in both statuses merged in
 * turn; it walks each filter (and two combined) at limit=1 and requires exactly the items, in the order, that the same
 * filter lists at limit=100, each of them one the filter matches. So too the lists that leave items out by themselves
 * (studies, chats, a chat's messages), walked across the ones they leave out.
 */
import { completionWaitMs, untilCompleted } from "../judge/completion.ts";
import { walk } from "./tie-walk.ts";
import type { CoverEnv, Unit } from "./unit.ts";
import { r } from "./rules.ts";

const DAY = 86_400_000;

/** At most this many pages walked one item per page: in a project shared with earlier runs, a prefix of the list. */
const SINGLE_PAGES = 60;

/**
 * Walks `path` one item per page and at 100, and judges the two the same (the first one, a prefix of the second where
 * the list is longer than SINGLE_PAGES), every item matching (`matches`), at least `atLeast` of them.
 */
async function judge(env: CoverEnv, cls: string, path: string, matches: (item: any) => boolean, atLeast: number): Promise<void> {
  const whole = await walk(env, path, 100, undefined, undefined, 50);
  const single = await walk(env, path, 1, undefined, undefined, Math.min(whole.items.length + 3, SINGLE_PAGES));
  const ids = (items: any[]) => items.map((x) => x?.id);
  const want = single.capped ? whole.items.slice(0, single.items.length) : whole.items;
  const strays = single.items.filter((x) => !matches(x)).map((x) => x?.id);
  const problem = whole.broken ? `at limit=100, ${whole.broken}` : !single.capped && single.broken ? `at limit=1, ${single.broken}` : whole.items.length < atLeast ? `at limit=100 it lists ${whole.items.length} items, fewer than the ${atLeast} planted that it matches` : strays.length ? `at limit=1 it lists ${JSON.stringify(strays)}, which the filter does not match` : JSON.stringify(ids(single.items)) !== JSON.stringify(ids(want)) ? `at limit=1 it lists ${JSON.stringify(ids(single.items))}, at limit=100 ${JSON.stringify(ids(want))}` : "";
  if (env.expect(r["filter-every-page"], !problem, `GET ${path} walked one item per page: ${problem}`, single.pages[single.pages.length - 1] ?? whole.pages[whole.pages.length - 1])) env.reach(cls, r["filter-every-page"].cites);
}

const CLASSES = {
  study: "interviews by study_id",
  status: "interviews by status",
  reference: "interviews by reference_id, across studies",
  combined: "interviews by study_id and status",
  score: "interviews by quality_score",
  releases: "releases by status",
  studies: "studies, paused and draft ones among them",
  chats: "chats, hidden ones among them",
  messages: "messages, hidden ones among them",
};

export const filteredWalks: Unit = {
  name: "filtered-walks",
  doc: "each filter walked one item per page: a study's interviews, interviews by status, by reference_id across two studies, by study_id and status together, by the quality_score two completed ones share, and releases by status, each listing at limit=1 exactly what it lists at limit=100, every item one the filter matches; and so the studies among paused and draft ones, the chats among hidden ones and a chat's messages among hidden ones",
  needs: ["plant-study", "plant-interview", "hold", "complete"],
  rules: [r["filter-every-page"]],
  classes: (ctx) => [
    CLASSES.study, CLASSES.status, CLASSES.reference, CLASSES.combined, CLASSES.score, CLASSES.studies,
    ...(ctx.states.has("plant-release") ? [CLASSES.releases] : []),
    ...(ctx.states.has("plant-chat") ? [CLASSES.chats] : []),
    ...(ctx.states.has("plant-chat", "hidden-messages") ? [CLASSES.messages] : []),
  ],
  async run(env) {
    const { ctx } = env;
    const plant = (k: number) => ctx.states.plantStudy({ name: `Filtered walks ${k}`, weekly_limit: null, monthly_limit: null }, env.project);
    const [a, b] = [(await plant(0)).id, (await plant(1)).id];
    // Interleaved: in study a, started and completed in turn under two reference ids; in study b, one of each status
    // under the first. Four completed in study a: of three scores, two of them share one.
    const run = Math.random().toString(36).slice(2, 10);
    const ref = (k: number) => `filtered_walk_${k % 2 ? "two" : "one"}_${run}`;
    const planted: Array<{ id: string; study: string; complete: boolean; reference: string }> = [];
    for (let k = 0; k < 8; k++) planted.push({ id: (await ctx.states.plantInterview({ study_id: a, hold: true, reference_id: ref(k >> 1) }, env.project)).id, study: a, complete: k % 2 === 1, reference: ref(k >> 1) });
    for (let k = 0; k < 2; k++) planted.push({ id: (await ctx.states.plantInterview({ study_id: b, hold: true, reference_id: ref(0) }, env.project)).id, study: b, complete: k === 1, reference: ref(0) });
    const wait = completionWaitMs(ctx.options);
    await Promise.all(planted.filter((p) => p.complete).map(async (p) => {
      await ctx.states.completeInterview(p.id, env.project);
      await untilCompleted(env.http, p.id, wait);
    }));
    await judge(env, CLASSES.study, `/v1/interviews?study_id=${a}`, (x) => x?.study_id === a, 8);
    await judge(env, CLASSES.combined, `/v1/interviews?study_id=${a}&status=started`, (x) => x?.study_id === a && x?.status === "started", 4);
    // Where the target needs study_id on the interview list (the seed leaves it open), each filter within study a.
    if (await env.http.needsStudyId()) {
      await judge(env, CLASSES.reference, `/v1/interviews?study_id=${a}&reference_id=${ref(0)}`, (x) => x?.reference_id === ref(0) && x?.study_id === a, 4);
      await judge(env, CLASSES.status, `/v1/interviews?study_id=${a}&status=completed`, (x) => x?.status === "completed" && x?.study_id === a, 4);
    } else {
      await judge(env, CLASSES.reference, `/v1/interviews?reference_id=${ref(0)}`, (x) => x?.reference_id === ref(0), 6);
      // By status alone in a project of the unit's own; where the project is shared, among this run's reference id.
      if (env.own) await judge(env, CLASSES.status, "/v1/interviews?status=started", (x) => x?.status === "started", 5);
      else await judge(env, CLASSES.status, `/v1/interviews?reference_id=${ref(0)}&status=started`, (x) => x?.status === "started" && x?.reference_id === ref(0), 3);
    }
    // The score two completed interviews of study a share (the implementation's choice, read back).
    const scores = new Map<string, number>();
    for (const p of planted.filter((p) => p.complete && p.study === a)) {
      const read = await env.req(`/v1/interviews/${p.id}`);
      const score = read.body?.quality_score;
      if (typeof score === "string") scores.set(score, (scores.get(score) ?? 0) + 1);
    }
    const shared = [...scores.entries()].find(([, n]) => n >= 2)?.[0];
    if (shared) await judge(env, CLASSES.score, `/v1/interviews?study_id=${a}&quality_score=${encodeURIComponent(shared)}`, (x) => x?.quality_score === shared && x?.study_id === a, 2);
    else ctx.note(`cover filtered-walks: four completed interviews of study ${a} read quality scores ${JSON.stringify([...scores])}, no two the same: the quality_score filter could not be walked past its first page`);
    await implicit(env);
    if (!ctx.states.has("plant-release")) return;
    // Releases in both statuses, merged in turn a day apart.
    const base = Date.now() - 40 * DAY;
    for (let k = 0; k < 6; k++) await ctx.states.plantRelease({ vcs_pr_number: 900 + k, vcs_pr_title: `Filtered walk ${k}`, status: k % 2 ? "dismissed" : "active", merged_at: new Date(base + k * DAY).toISOString() }, env.project);
    for (const status of ["active", "dismissed"]) await judge(env, CLASSES.releases, `/v1/releases?status=${status}`, (x) => x?.status === status, 3);
  },
};

/**
 * The lists that leave items out by themselves, each walked one item per page across the items they leave out: studies
 * among paused and draft ones, chats among internal, evaluation and release ones, a chat's messages among hidden ones.
 * A list that takes its page from every item and drops the ones it must not show answers short or empty pages that
 * still say has_more, and a walk that follows the seed's rule (the next page after the last item) loses items.
 */
async function implicit(env: CoverEnv): Promise<void> {
  const { ctx } = env;
  const statuses = ["active", "paused", "active", "draft", "active", "paused"] as const;
  const studies: Array<{ id: string; status: string }> = [];
  for (const [k, status] of statuses.entries()) studies.push({ id: (await ctx.states.plantStudy({ name: `Implicit ${k}`, status, weekly_limit: null, monthly_limit: null }, env.project)).id, status });
  const inactive = new Set(studies.filter((x) => x.status !== "active").map((x) => x.id));
  await judge(env, CLASSES.studies, "/v1/studies", (x) => x?.status === "active" && !inactive.has(x?.id), env.own ? 3 : 0);
  if (!ctx.states.has("plant-chat")) return;
  const visibilities = ["visible", "internal", "visible", "evaluation", "visible", "release"] as const;
  const chats: Array<{ id: string; visibility: string }> = [];
  for (const [k, visibility] of visibilities.entries()) chats.push({ id: (await ctx.states.plantChat({ title: `Implicit ${k}`, visibility, messages: [{ role: "user", parts: [{ type: "text", text: `chat ${k}` }] }] }, env.project)).id, visibility });
  const hidden = new Set(chats.filter((c) => c.visibility !== "visible").map((c) => c.id));
  await judge(env, CLASSES.chats, "/v1/chats", (x) => !hidden.has(x?.id), env.own ? 3 : 0);
  if (!ctx.states.has("hidden-messages")) return;
  const flags = [false, true, false, true, true, false, false, true];
  const chat = await ctx.states.plantChat({ title: "Implicit messages", messages: flags.map((h, k) => ({ role: k % 2 ? "assistant" as const : "user" as const, parts: [{ type: "text" as const, text: `message ${k}` }], ...(h ? { hidden: true } : {}) })) }, env.project);
  const hiddenMessages = new Set(chat.message_ids.filter((_, k) => flags[k]));
  await judge(env, CLASSES.messages, `/v1/chats/${chat.id}/messages`, (x) => !hiddenMessages.has(x?.id), 4);
}
