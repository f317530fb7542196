/**
 * The deprecated report at every step, every run: read, then a study planted active (in the next read), paused and
 * draft ones (never), then an interview of the active one completed (its stats change). Whatever the report's shape,
 * a study is "in it" when its id appears in it, and its stats are the object that holds its id.
 */
import { completionWaitMs, untilCompleted } from "../judge/completion.ts";
import type { Reply } from "../http.ts";
import { entryOf as holderOf } from "../judge/entries.ts";
import type { Unit } from "./unit.ts";
import { r } from "./rules.ts";

const carries = (reply: Reply) => !!reply.headers.get("deprecation") && !!reply.headers.get("sunset");

export const experiments: Unit = {
  name: "experiments",
  doc: "the deprecated report read before and after a study is planted active, paused and draft, and after one of its interviews completes: current at every read (never cached), with Deprecation and Sunset",
  needs: ["plant-study"],
  statements: [...r["experiments-current"].cites],
  classes: (ctx) => ["study planted active", "study planted paused", "study planted draft", ...(ctx.states.has("plant-interview") ? ["interview completed"] : [])],
  async run(env) {
    const { ctx } = env;
    const read = async (when: string) => {
      const reply = await env.req("/v1/experiments");
      env.expect(r["experiments-current"], reply.status === 200 && carries(reply), `GET /v1/experiments ${when} answered ${reply.status} with Deprecation ${JSON.stringify(reply.headers.get("deprecation"))} and Sunset ${JSON.stringify(reply.headers.get("sunset"))}`, reply);
      return reply;
    };
    await read("first");
    const active = await ctx.states.plantStudy({ name: "Report: active", weekly_limit: null, monthly_limit: null }, env.project);
    const afterActive = await read("after a study was planted active");
    env.expect(r["experiments-current"], holderOf(afterActive.body, active.id) !== undefined, `GET /v1/experiments does not hold study ${active.id}, planted active just before it (a report read earlier cached?)`, afterActive);
    env.reach("study planted active", r["experiments-current"].cites);
    for (const status of ["paused", "draft"] as const) {
      const s = await ctx.states.plantStudy({ name: `Report: ${status}`, status }, env.project);
      const reply = await read(`after a study was planted ${status}`);
      env.expect(r["experiments-current"], holderOf(reply.body, s.id) === undefined, `GET /v1/experiments holds study ${s.id}, planted ${status}: it lists active experiments only`, reply);
      env.reach(`study planted ${status}`, r["experiments-current"].cites);
    }
    if (!ctx.states.has("plant-interview")) return;
    const before = JSON.stringify(holderOf((await read("before an interview completes")).body, active.id));
    const { id } = await ctx.states.plantInterview({ study_id: active.id }, env.project);
    await untilCompleted(env.http, id, completionWaitMs(ctx.options));
    const after = await read("after an interview of the study completed");
    const now = JSON.stringify(holderOf(after.body, active.id));
    env.expect(r["experiments-current"], now !== before, `study ${active.id}'s entry in GET /v1/experiments is the same after one of its interviews completed (${now?.slice(0, 300)}): its interview stats are not current`, after);
    env.reach("interview completed", r["experiments-current"].cites);
  },
};
