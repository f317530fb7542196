/**
 * A walk whose cursor left the list since it was read, every run. The seed's walk asks for the next page with
 * `starting_after` set to the last item's id; that item may have left the list in between: a study paused (the list
 * shows active studies), an interview completed in a walk filtered by `status=started`. The page after it must still
 * hold the items that followed it, or refuse the cursor with a 400 (as the seed has it for a message no longer
 * visible, and as our design pins for every list): never a page that ends the walk as if nothing followed, which
 * skips them unseen. The seed leaves the order of both lists open, so the unit reads the order first and takes one of
 * its own items that others follow. And a walk of a study's interviews one per page while two of them complete between
 * pages (they stay in the list): each is listed exactly once, so an order that moves an item as it changes shows.
 */
import { completionWaitMs, untilCompleted } from "../judge/completion.ts";
import { walk } from "./tie-walk.ts";
import type { CoverEnv, Unit } from "./unit.ts";
import { r } from "./rules.ts";

const ids = (items: any[]): string[] => items.map((x) => x?.id);

/**
 * Reads `path` whole, takes the first of `mine` that others follow as the cursor, makes it leave the list (`leave`),
 * and judges the walk from it: every item that followed it, and (in a project of the unit's own) nothing else.
 */
async function judge(env: CoverEnv, path: string, mine: string[], what: string, leave: (id: string) => Promise<void>): Promise<void> {
  const order = ids((await env.http.walk(path, 100)).items);
  const at = order.findIndex((id, k) => mine.includes(id) && k < order.length - 1);
  if (at < 0) {
    env.expect(r["cursor-left"], false, `GET ${path} lists ${JSON.stringify(order).slice(0, 400)}: none of the unit's items ${JSON.stringify(mine)} is followed by another`);
    return;
  }
  const cursor = order[at];
  const followed = order.slice(at + 1);
  await leave(cursor);
  const { ids: got, pages } = await walk(env, path, 100, cursor, undefined, 50);
  const first = pages[0];
  const missing = followed.filter((id) => !got.includes(id));
  const whole = env.own ? JSON.stringify(got) === JSON.stringify(followed) : missing.length === 0;
  // A refusal tells the client its walk broke; only an answer that ends it quietly loses items.
  const refused = first.status === 400 && typeof first.body === "object" && first.body !== null;
  env.expect(r["cursor-left"], refused || (first.status === 200 && whole), `GET ${path} listed ${JSON.stringify(followed)} after ${cursor}; ${what}, the walk from starting_after=${cursor} answered ${first.status} and lists ${JSON.stringify(got)}${missing.length ? `, without ${JSON.stringify(missing)}` : ""}: the walk ends as if nothing followed, skipping the items that did (continuing, or refusing the cursor with a 400, would not)`, first);
}

export const leftCursors: Unit = {
  name: "left-cursors",
  doc: "a walk whose last item left the list since it was read: the studies list after a study paused since, and a study's interviews filtered by status=started after one completed since, each continue with the items that followed it or refuse the cursor (400), never end as if nothing followed; a study's interviews walked one per page while two complete between pages, each listed once",
  needs: ["plant-study"],
  rules: [r["cursor-left"], r["walk-changing"]],
  classes: (ctx) => [
    ...(ctx.states.has("study-status") ? ["cursor of a study paused since"] : []),
    ...(ctx.states.has("plant-interview", "hold", "complete") ? ["cursor of an interview completed since", "interviews completed between pages"] : []),
  ],
  async run(env) {
    const { ctx } = env;
    const plant = (k: number) => ctx.states.plantStudy({ name: `Cursor left ${k}`, weekly_limit: null, monthly_limit: null }, env.project);
    // One after the other: two studies are followed by at least one other whatever order the list keeps.
    const studies = [(await plant(0)).id, (await plant(1)).id];
    if (ctx.states.has("study-status")) {
      let paused: string | null = null;
      try {
        await judge(env, "/v1/studies", studies, "with that study paused since", async (id) => {
          paused = id;
          await ctx.states.setStudyStatus(id, "paused", env.project);
        });
      } finally {
        if (paused) await ctx.states.setStudyStatus(paused, "active", env.project);
      }
      env.reach("cursor of a study paused since", r["cursor-left"].cites);
    }
    if (!ctx.states.has("plant-interview", "hold", "complete")) return;
    const study = studies[0];
    const held = [];
    for (let k = 0; k < 2; k++) held.push((await ctx.states.plantInterview({ study_id: study, hold: true }, env.project)).id);
    await judge(env, `/v1/interviews?study_id=${study}&status=started`, held, "with that interview completed since", async (id) => void (await ctx.states.completeInterview(id, env.project)));
    env.reach("cursor of an interview completed since", r["cursor-left"].cites);
    await walkCompleting(env);
  },
};

/**
 * A fresh study's three held interviews walked one per page while two of them complete, each waited until it reads
 * completed before the next page: after the first page the one just read (an order by last change, oldest first, moves
 * it past the cursor), after the second the last one not yet read (newest first, it moves before the cursor).
 */
async function walkCompleting(env: CoverEnv): Promise<void> {
  const { ctx } = env;
  const { id: study } = await ctx.states.plantStudy({ name: "Walk while completing", weekly_limit: null, monthly_limit: null }, env.project);
  const planted: string[] = [];
  for (let k = 0; k < 3; k++) planted.push((await ctx.states.plantInterview({ study_id: study, hold: true }, env.project)).id);
  const path = `/v1/interviews?study_id=${study}`;
  const order = ids((await env.http.walk(path, 100)).items);
  const complete = async (id: string | undefined) => {
    if (!id || !planted.includes(id)) return;
    await ctx.states.completeInterview(id, env.project);
    await untilCompleted(env.http, id, completionWaitMs(ctx.options));
  };
  const { ids: seen, pages } = await walk(env, path, 1, undefined, undefined, 6, async (n, data, sofar) => {
    if (n === 0) await complete(data[0]?.id);
    if (n === 1) await complete(order.filter((id) => !sofar.includes(id)).pop());
  });
  const last = pages[pages.length - 1];
  const once = planted.every((id) => seen.filter((x) => x === id).length === 1) && seen.length === planted.length;
  env.expect(r["walk-changing"], once, `the study's three interviews ${JSON.stringify(order)}, walked one per page while two completed between pages (the one just read, then the last one not yet read), were listed as ${JSON.stringify(seen)}: each must be listed exactly once (a completed interview stays in the list)`, last);
  env.reach("interviews completed between pages", r["walk-changing"].cites);
}
