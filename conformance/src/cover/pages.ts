/**
 * Pages, every run, on the lists a project fills by planting: 150 active studies, and where the target plants them 150
 * releases, 150 visible chats and a study of 150 interviews of one reference id (held, so none completes). Read
 * without `limit`, each list holds 20 items with has_more true, and the page after the 20th continues it. Read at
 * `limit=100`, it holds 100 with has_more true, and the page after the 100th holds the rest (in a project of the
 * unit's own: the 50 left, with has_more false, and the two pages are the 150 planted). A list that serves fewer than
 * `limit` while more remain (a page capped below 100 on one list) shows only past 100. Walked whole at 20 a page,
 * each list takes cursors past its 100th item (a walk of 101 never does: its cursors stop at the 100th), where a
 * cursor looked up among the first 100 only is lost; and the page after its last item is empty. The messages list is
 * walked past 100 by the counts unit.
 */
import { inBatches } from "../model/interview-steps.ts";
import type { CoverEnv, Unit } from "./unit.ts";
import { r } from "./rules.ts";

const PAST = 150;
/** The page a whole walk takes: its cursors fall on the 20th, 40th, ... 140th items, past the first 100. */
const WALK_PAGE = 20;

const withQuery = (path: string, query: string) => `${path}${path.includes("?") ? "&" : "?"}${query}`;

/** Plants `PAST` items, ten at a time; their ids. */
async function plantAll(plant: (k: number) => Promise<{ id: string }>): Promise<string[]> {
  const ids: string[] = [];
  await inBatches(Array.from({ length: PAST }, (_, k) => k), 10, async (k) => void (ids[k] = (await plant(k)).id));
  return ids;
}

const itemsOf = (body: any): any[] => (Array.isArray(body?.data) ? body.data : []);

/** The page after `data`'s last item, at `limit` (none: the default); and the ids it repeats from `data`. */
async function after(env: CoverEnv, path: string, data: any[], limit?: number) {
  const last = data[data.length - 1]?.id;
  if (typeof last !== "string") return null;
  const next = await env.req(withQuery(path, `${limit ? `limit=${limit}&` : ""}starting_after=${encodeURIComponent(last)}`));
  const more = itemsOf(next.body);
  return { next, more, repeated: more.filter((x) => data.some((d) => d.id === x?.id)).map((x) => x.id) };
}

async function judge(env: CoverEnv, path: string, planted: string[], what: string): Promise<void> {
  const first = await env.req(path);
  const data = itemsOf(first.body);
  env.expect(r["default-page"], first.status === 200 && data.length === 20 && first.body?.has_more === true, `GET ${path} without limit, past ${PAST} items planted, answered ${first.status} with ${data.length} items and has_more ${JSON.stringify(first.body?.has_more)}, not 20 and true`, first);
  const second = await after(env, path, data);
  if (second) {
    const { next, more, repeated } = second;
    env.expect(r["default-page"], next.status === 200 && more.length === 20 && next.body?.has_more === true && repeated.length === 0, `the page of GET ${path} after its 20th item answered ${next.status} with ${more.length} items (has_more ${JSON.stringify(next.body?.has_more)}${repeated.length ? `, repeating ${repeated.join(", ")}` : ""}), not the next 20 and has_more true`, next);
  }
  env.reach(`${what} past a page`, r["default-page"].cites);
  // At the largest page: 100 and has_more, then the rest.
  const full = await env.req(withQuery(path, "limit=100"));
  const hundred = itemsOf(full.body);
  env.expect(r.counts, full.status === 200 && hundred.length === 100 && full.body?.has_more === true, `GET ${path}?limit=100, past ${PAST} items planted, answered ${full.status} with ${hundred.length} items and has_more ${JSON.stringify(full.body?.has_more)}, not 100 and true`, full);
  const rest = await after(env, path, hundred, 100);
  if (rest) {
    const { next, more, repeated } = rest;
    const whole = env.own ? more.length === PAST - 100 && next.body?.has_more === false : more.length >= 1;
    env.expect(r.counts, next.status === 200 && whole && repeated.length === 0, `the page of GET ${path}?limit=100 after its 100th item answered ${next.status} with ${more.length} items (has_more ${JSON.stringify(next.body?.has_more)}${repeated.length ? `, repeating ${repeated.join(", ")}` : ""}), not ${env.own ? `the ${PAST - 100} left and has_more false` : "the rest"}`, next);
    if (env.own) {
      const seen = new Set([...hundred, ...more].map((x) => x?.id));
      const missing = planted.filter((id) => !seen.has(id));
      env.expect(r.counts, missing.length === 0 && seen.size === PAST, `the two pages of GET ${path}?limit=100 hold ${seen.size} distinct items${missing.length ? `, without ${missing.slice(0, 3).join(", ")}${missing.length > 3 ? ` and ${missing.length - 3} more` : ""}` : ""}, not the ${PAST} planted`, next);
    }
  }
  env.reach(`${what} past 100`, r.counts.cites);
  await walkWhole(env, path, planted, what);
}

/** `path` walked whole at WALK_PAGE a page: every planted item once, cursors past the 100th taken; then the page after its last. */
async function walkWhole(env: CoverEnv, path: string, planted: string[], what: string): Promise<void> {
  const rule = r["cursor-past-100"];
  let ids: string[];
  try {
    ids = (await env.http.walk(path, WALK_PAGE)).items.map((x: any) => x?.id);
  } catch (err) {
    env.expect(rule, false, `a walk of GET ${path} at limit=${WALK_PAGE}, past ${PAST} items planted, broke off: ${(err as Error).message}`, (err as { reply?: any }).reply);
    return;
  }
  const missing = planted.filter((id) => !ids.includes(id));
  const repeated = ids.filter((id, i) => ids.indexOf(id) !== i);
  env.expect(rule, missing.length === 0 && repeated.length === 0 && (!env.own || ids.length === PAST), `a walk of GET ${path} at limit=${WALK_PAGE} listed ${ids.length} items${missing.length ? `, without ${missing.length} of the ${PAST} planted (e.g. ${missing.slice(0, 2).join(", ")}, planted #${planted.indexOf(missing[0]) + 1})` : ""}${repeated.length ? `, ${repeated.length} of them twice` : ""}: its cursors past the 100th item must be taken like the others`);
  // The page after the walk's last item: nothing came since in a project of the unit's own.
  const last = ids[ids.length - 1];
  if (env.own && typeof last === "string") {
    const next = await env.req(withQuery(path, `limit=${WALK_PAGE}&starting_after=${encodeURIComponent(last)}`));
    const more = itemsOf(next.body);
    env.expect(rule, next.status === 200 && more.length === 0 && next.body?.has_more === false, `the page of GET ${path} after the last of its ${ids.length} items answered ${next.status} with ${more.length} items and has_more ${JSON.stringify(next.body?.has_more)}, not an empty page with has_more false (its last item is an item of the list)`, next);
  }
  env.reach(`${what} walked past 100`, rule.cites);
}

export const pages: Unit = {
  name: "pages",
  doc: "150 active studies, 150 releases, 150 visible chats and a study of 150 held interviews: each list read without limit holds 20 with has_more true and the next page continues it; read at limit 100 it holds 100 with has_more true and the next page the 50 left; walked whole at 20 a page (cursors past the 100th item) it lists each once, and the page after its last is empty",
  needs: ["plant-study"],
  rules: [r["default-page"], r.counts, r["cursor-past-100"]],
  classes: (ctx) => [
    "studies past a page", "studies past 100", "studies walked past 100",
    ...(ctx.states.has("plant-release") ? ["releases past a page", "releases past 100", "releases walked past 100"] : []),
    ...(ctx.states.has("plant-chat") ? ["chats past a page", "chats past 100", "chats walked past 100"] : []),
    ...(ctx.states.has("plant-interview") && ctx.states.has("hold") ? ["a study's interviews past a page", "a study's interviews past 100", "a study's interviews walked past 100", "a reference id's interviews past a page", "a reference id's interviews past 100", "a reference id's interviews walked past 100"] : []),
  ],
  async run(env) {
    const { ctx } = env;
    const studies = await plantAll((k) => ctx.states.plantStudy({ name: `Page ${k}`, status: "active", weekly_limit: null, monthly_limit: null }, env.project));
    await judge(env, "/v1/studies", studies, "studies");
    if (ctx.states.has("plant-release")) {
      const t0 = Date.now() - 3 * 86_400_000;
      const releases = await plantAll((k) => ctx.states.plantRelease({ vcs_pr_number: 9000 + k, vcs_pr_title: `Page ${k}`, merged_at: new Date(t0 + k * 60_000).toISOString() }, env.project));
      await judge(env, "/v1/releases", releases, "releases");
    }
    if (ctx.states.has("plant-chat")) {
      const chats = await plantAll((k) => ctx.states.plantChat({ title: `Page ${k}`, messages: [{ role: "user", parts: [{ type: "text", text: "hello" }] }] }, env.project));
      await judge(env, "/v1/chats", chats, "chats");
    }
    if (ctx.states.has("plant-interview") && ctx.states.has("hold")) {
      // Held: none completes (so no delivery, and no status to change under the walk).
      const study = await ctx.states.plantStudy({ name: "Page interviews", status: "active", weekly_limit: null, monthly_limit: null }, env.project);
      // All of one reference id too (a respondent who took it 150 times): its filter pages as the study's does.
      const reference = `page_ref_${Math.floor(Math.random() * 1e9)}`;
      const interviews = await plantAll(() => ctx.states.plantInterview!({ study_id: study.id, hold: true, reference_id: reference }, env.project));
      await judge(env, `/v1/interviews?study_id=${encodeURIComponent(study.id)}`, interviews, "a study's interviews");
      // Where the target needs study_id on the interview list (the seed leaves it open), the reference id within it.
      const scope = (await env.http.needsStudyId()) ? `study_id=${encodeURIComponent(study.id)}&` : "";
      await judge(env, `/v1/interviews?${scope}reference_id=${encodeURIComponent(reference)}`, interviews, "a reference id's interviews");
    }
  },
};
