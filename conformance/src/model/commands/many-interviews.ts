/** `manyInterviews`: a new uncapped study with 101 to 105 interviews, all but three completed (at most once a run): the lists walked past the first page, interview_count and used. */
import fc from "fast-check";
import { completeNow, inBatches, judgeFiltered, start } from "../interview-steps.ts";
import { r } from "../rules.ts";
import type { Model, World } from "../world.ts";
import { Command, awaitDelivery, openInterviews, type CommandSpec } from "./base.ts";

/**
 * Counts past the first page: a new uncapped study takes more interviews than a page holds (101 to 105), all but
 * three are completed, and the lists (walked at the maximum page size), interview_count and used are judged on
 * them. Drawn at most once per run.
 */
export class ManyInterviews extends Command {
  readonly name = "manyInterviews";
  constructor(readonly count: number) {
    super();
  }
  protected async act(m: Model, w: World) {
    if (w.once.has(this.name)) return;
    w.once.add(this.name);
    const { id } = await w.ctx.states.plantStudy({ name: `Model study ${m.seq} (many)`, weekly_limit: null, monthly_limit: null }, w.project);
    m.study = { id, weekly: null, monthly: null, base: { interviewCount: 0, weeklyUsed: 0, monthlyUsed: 0, before: new Set() } };
    m.interviews = new Map();
    for (let k = 0; k < this.count; k++) await start(m, w, false);
    const ids = openInterviews(m).map(([x]) => x).slice(3);
    // Ten at a time: the counts need interviews past a page, not a burst (the covering phase's burst unit completes
    // 101 at once, alone). Twenty-five at a time, beside the other workers' sequences, kept a service that opens a TLS
    // context for each delivery (../shared/foreign: 40 ms of its one thread) from answering them for 8.5 s under a
    // CI-like load, and once (CI, seed 1382127031) past the 15 s a request is given.
    await inBatches(ids, 10, (x) => completeNow(m, w, x));
    await Promise.all(ids.filter((x) => m.expected.has(x)).map((x) => awaitDelivery(m, w, x, this.toString())));
    await judgeFiltered(m, w, "completed");
    await judgeFiltered(m, w, "started");
    const read = await w.http.req(`/v1/studies/${id}`);
    w.judge.expect(r["interview-count"], read.body?.interview_count === ids.length, `interview_count is ${read.body?.interview_count} after ${ids.length} of the study's ${this.count} interviews completed`, read);
    for (const window of ["weekly", "monthly"] as const) {
      const used = read.body?.limits?.[window]?.used;
      w.judge.expect(r["used-bounds"], typeof used === "number" && used >= ids.length && used <= this.count, `limits.${window}.used is ${used} with ${ids.length} completed of ${this.count} interviews`, read);
    }
  }
  override toString = () => `manyInterviews(${this.count}, at most once a run)`;
}

export const manyInterviews: CommandSpec = {
  name: "manyInterviews",
  doc: "a new uncapped study with 101 to 105 interviews, all but three completed (at most once a run): the lists walked past the first page, interview_count and used",
  statements: ["study.interview-count", "endpoints.list-interviews", "endpoints.next-page", "limits.page-size", "study.weekly-used", "study.monthly-used"],
  needs: ["plant-study", "plant-interview", "hold", "complete"],
  weight: 1,
  draw: () => fc.integer({ min: 101, max: 105 }).map((n) => new ManyInterviews(n)),
};
