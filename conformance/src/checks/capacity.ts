/**
 * capacity (--sim): plants studies with chosen caps and moves interviews through them one step at a time
 * (held interviews, completed on demand), checking `limits.*.used`, `accepting_responses` flipping at the
 * cap, `interview_count` counting completed interviews only, and paused studies.
 */
import type { Check, Ctx } from "../check.ts";
import type { Reply } from "../http.ts";
import { contract, rules, seed } from "../rules.ts";

const r = rules("capacity", {
  "used-counts": seed("Study: limits.*.used, interviews used in the period", "a completed interview counts once in limits.monthly.used and limits.weekly.used of its study", ["study.monthly-used", "study.weekly-used"]),
  "limits-echo": seed("Study: limits.*.limit", "limits.monthly.limit and limits.weekly.limit are the configured caps (null = unlimited)", ["study.monthly-limit", "study.weekly-limit", "limits.caps"]),
  "accepting-below": seed("Study: accepting_responses", "an active study whose every capped window has used < limit is accepting responses", ["study.accepting", "states.accepting"]),
  "accepting-at-cap": seed("Study: accepting_responses; Limits: study interview caps", "once a window's used reaches its limit, accepting_responses is false", ["study.accepting", "states.accepting", "limits.caps"]),
  "interview-count": seed("Study: interview_count, total completed interviews", "interview_count counts completed interviews only: a started one does not count until it completes", ["study.interview-count"]),
  paused: seed("Study: accepting_responses; Endpoints: GET /v1/studies lists active studies", "a paused study is not accepting responses and is not listed", ["states.accepting", "endpoints.list-studies"]),
  listed: seed("Endpoints: GET /v1/studies", "an active study is listed with the same limits and accepting_responses as its retrieval", ["endpoints.list-studies"]),
  "used-on-start": contract("usage windows", "an interview counts in limits.*.used from its creation, whatever its status"),
  "sim-at-cap": contract("simulation surface", "simulating an interview in a study that is not accepting responses answers 409"),
});

async function study(ctx: Ctx, id: string): Promise<any | null> {
  const reply = await ctx.http.req(`/v1/studies/${id}`);
  ctx.must(r.listed, reply.status === 200, `GET /v1/studies/${id} of a planted study answered ${reply.status}`, reply);
  ctx.conforms(reply, `GET /v1/studies/${id}`);
  return reply.body;
}

async function simulate(ctx: Ctx, studyId: string): Promise<Reply> {
  return ctx.http.req("/_sim/interviews", { method: "POST", body: { study_id: studyId, reference_id: "conformance_capacity", hold: true } });
}

async function complete(ctx: Ctx, id: string): Promise<boolean> {
  const reply = await ctx.http.req(`/_sim/interviews/${id}/complete`, { method: "POST" });
  if (reply.status !== 200) {
    ctx.untested("interviews completed on demand", `POST /_sim/interviews/${id}/complete answered ${reply.status}`);
    return false;
  }
  ctx.conforms(reply, "POST /_sim/interviews/:id/complete");
  return true;
}

export const capacityCheck: Check = {
  name: "capacity",
  description: "planted caps: limits.*.used, accepting_responses flipping at the cap, interview_count counting completed interviews only",
  rules: r,
  needs: ["sim"],
  operations: ["getStudy", "listStudies", "simCreateStudy", "simCompleteInterview"],
  async run(ctx) {
    const planted = await ctx.http.req("/_sim/studies", { method: "POST", body: { name: "Capacity probe", monthly_limit: 3, weekly_limit: 2 } });
    if (planted.status !== 201) return ctx.untested("planted caps", `POST /_sim/studies answered ${planted.status}`);
    ctx.conforms(planted, "POST /_sim/studies");
    const id = planted.body.id;
    let s = await study(ctx, id);
    ctx.expect(r["limits-echo"], s.limits?.monthly?.limit === 3 && s.limits?.weekly?.limit === 2, `planted caps 3 (monthly) and 2 (weekly) read back as ${JSON.stringify(s.limits)}`);
    const listed = (await ctx.http.walk("/v1/studies", 100)).items.find((x: any) => x.id === id);
    ctx.expect(r.listed, listed && JSON.stringify(listed.limits) === JSON.stringify(s.limits) && listed.accepting_responses === s.accepting_responses, `the planted study is ${listed ? `listed with ${JSON.stringify({ limits: listed.limits, accepting_responses: listed.accepting_responses })}` : "not listed"}`);

    let completed = 0;
    let created = 0;
    /** What the study must say with `completed` of `created` interviews: the seed's bounds on used, and accepting consistent with them. */
    const observe = async (when: string) => {
      s = await study(ctx, id);
      for (const w of ["monthly", "weekly"] as const) {
        const used = s.limits?.[w]?.used;
        ctx.expect(r["used-counts"], used >= completed && used <= created, `${when}: limits.${w}.used is ${used} with ${completed} completed of ${created} interviews`);
        ctx.expect(r["used-on-start"], used === created, `${when}: limits.${w}.used is ${used}; ${created} interviews were created in the window`);
      }
      ctx.expect(r["interview-count"], s.interview_count === completed, `${when}: interview_count is ${s.interview_count} with ${completed} completed of ${created} interviews`);
      const within = ["monthly", "weekly"].every((w) => s.limits[w].limit === null || s.limits[w].used < s.limits[w].limit);
      ctx.expect(within ? r["accepting-below"] : r["accepting-at-cap"], s.accepting_responses === within, `${when}: accepting_responses=${s.accepting_responses} with ${JSON.stringify(s.limits)}`);
    };
    await observe("a new study");

    const first = await simulate(ctx, id);
    if (first.status !== 201) return ctx.untested("interviews in a planted study", `POST /_sim/interviews with hold answered ${first.status}`);
    created++;
    await observe("one started interview");
    if (!(await complete(ctx, first.body.id))) return;
    completed++;
    await observe("one completed interview");

    const second = await simulate(ctx, id);
    ctx.must(r["accepting-below"], second.status === 201, `simulating the 2nd of 2 weekly interviews answered ${second.status}`, second);
    created++;
    await observe("one completed and one started interview");
    const wasAccepting = s.accepting_responses;
    const third = await simulate(ctx, id);
    if (!wasAccepting) ctx.expect(r["sim-at-cap"], third.status === 409, `simulating an interview in a study not accepting responses answered ${third.status}, not 409`, third);
    if (third.status === 201) created++;
    const open = [second.body.id, ...(third.status === 201 ? [third.body.id] : [])];
    for (const held of open) {
      if (!(await complete(ctx, held))) return;
      completed++;
    }
    // Two completed interviews reach the weekly cap of 2 whatever the server counts on start.
    await observe(`${completed} completed interviews against a weekly cap of 2`);
    ctx.expect(r["accepting-at-cap"], s.accepting_responses === false, `with ${completed} completed interviews against a weekly cap of 2, accepting_responses=${s.accepting_responses}`);

    // The monthly cap alone flips it too.
    const monthly = await ctx.http.req("/_sim/studies", { method: "POST", body: { name: "Monthly cap probe", monthly_limit: 1, weekly_limit: null } });
    if (monthly.status === 201) {
      const one = await simulate(ctx, monthly.body.id);
      if (one.status === 201 && (await complete(ctx, one.body.id))) {
        const m = await study(ctx, monthly.body.id);
        ctx.expect(r["limits-echo"], m.limits.weekly.limit === null, `an unlimited weekly cap reads back as ${m.limits.weekly.limit}`);
        ctx.expect(r["accepting-at-cap"], m.accepting_responses === false, `with 1 completed interview against a monthly cap of 1, accepting_responses=${m.accepting_responses}`);
      }
    }

    const paused = await ctx.http.req("/_sim/studies", { method: "POST", body: { name: "Paused probe", status: "paused" } });
    if (paused.status === 201) {
      const p = await study(ctx, paused.body.id);
      ctx.expect(r.paused, p.accepting_responses === false, `a paused study without caps says accepting_responses=${p.accepting_responses}`);
      const shown = (await ctx.http.walk("/v1/studies", 100)).items.some((x: any) => x.id === paused.body.id);
      ctx.expect(r.paused, !shown, "a paused study is listed by GET /v1/studies");
    } else ctx.untested("paused studies", `POST /_sim/studies with status paused answered ${paused.status}`);
  },
};
