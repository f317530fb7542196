/**
 * capacity (--sim): plants studies with chosen caps and moves interviews through them one step at a time
 * (held interviews, completed on demand), checking `limits.*.used`, `accepting_responses` flipping at the
 * cap, `interview_count` counting completed interviews only, and paused and draft studies, with caps and without.
 */
import type { Check, Ctx } from "../check.ts";
import { completionWaitMs, untilCompleted } from "../judge/completion.ts";
import { withinLimits } from "../judge/windows.ts";
import { contract, rules, seed } from "../rules.ts";
import { refusal, type StateRefused } from "../states/types.ts";

const r = rules("capacity", {
  "used-counts": seed("Study: limits.*.used, interviews used in the period", "a completed interview counts once in limits.monthly.used and limits.weekly.used of its study", ["study.monthly-used", "study.weekly-used"]),
  "limits-echo": seed("Study: limits.*.limit", "limits.monthly.limit and limits.weekly.limit are the configured caps (null = unlimited)", ["study.monthly-limit", "study.weekly-limit", "limits.caps"]),
  "accepting-below": seed("Study: accepting_responses", "an active study whose every capped window has used < limit is accepting responses", ["study.accepting", "states.accepting"]),
  "accepting-at-cap": seed("Study: accepting_responses; Limits: study interview caps", "once a window's used reaches its limit, accepting_responses is false", ["study.accepting", "states.accepting", "limits.caps"]),
  "interview-count": seed("Study: interview_count, total completed interviews", "interview_count counts completed interviews only: a started one does not count until it completes", ["study.interview-count"]),
  paused: seed("Study: accepting_responses; Endpoints: GET /v1/studies lists active studies", "a paused or draft study, without caps or under any of them, is not accepting responses and is not listed", ["states.accepting", "endpoints.list-studies"]),
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

/** The respondent finishes a held interview; it counts as completed once it reads so (after the service's processing). */
async function complete(ctx: Ctx, id: string): Promise<void> {
  await ctx.states.completeInterview(id);
  const { reply, seen } = await untilCompleted(ctx.http, id, completionWaitMs(ctx.options));
  ctx.must(r["interview-count"], reply.body?.status === "completed", `interview ${id} never read completed within ${completionWaitMs(ctx.options)} ms of its respondent finishing (statuses seen: ${seen.join(" -> ") || reply.status})`, reply);
}

/** A held interview in the study: its id, or how the service refused it (a study not accepting responses: 409 over /_sim). */
async function simulate(ctx: Ctx, studyId: string): Promise<{ id?: string; refused?: StateRefused }> {
  try {
    return { id: (await ctx.states.plantInterview({ study_id: studyId, reference_id: "conformance_capacity", hold: true })).id };
  } catch (err) {
    const refused = refusal(err);
    if (refused) return { refused };
    throw err;
  }
}

export const capacityCheck: Check = {
  name: "capacity",
  description: "planted caps: limits.*.used, accepting_responses flipping at the cap, interview_count counting completed interviews only",
  rules: r,
  needs: ["sim", "plant-study", "plant-interview", "hold", "complete"],
  operations: ["getStudy", "listStudies", "simCreateStudy", "simCompleteInterview"],
  async run(ctx) {
    // Caps as large as the contract carries (int32) read back whole too: a cap is never clipped.
    const large = await ctx.states.plantStudy({ name: "Capacity probe, large caps", monthly_limit: 2147483647, weekly_limit: 1000000 });
    const big = await study(ctx, large.id);
    ctx.expect(r["limits-echo"], big.limits?.monthly?.limit === 2147483647 && big.limits?.weekly?.limit === 1000000, `planted caps 2147483647 (monthly) and 1000000 (weekly) read back as ${JSON.stringify(big.limits)}`);
    const { id } = await ctx.states.plantStudy({ name: "Capacity probe", monthly_limit: 3, weekly_limit: 2 });
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
      const within = withinLimits(s);
      ctx.expect(within ? r["accepting-below"] : r["accepting-at-cap"], s.accepting_responses === within, `${when}: accepting_responses=${s.accepting_responses} with ${JSON.stringify(s.limits)}`);
    };
    await observe("a new study");

    const first = await simulate(ctx, id);
    if (!first.id) return ctx.untested("interviews in a planted study", `a held interview in it was refused: ${first.refused?.message}`);
    created++;
    await observe("one started interview");
    await complete(ctx, first.id);
    completed++;
    await observe("one completed interview");

    const second = await simulate(ctx, id);
    ctx.must(r["accepting-below"], second.id, `simulating the 2nd of 2 weekly interviews was refused: ${second.refused?.message}`);
    created++;
    await observe("one completed and one started interview");
    const wasAccepting = s.accepting_responses;
    const third = await simulate(ctx, id);
    // The reason of a refusal is the contract's 409 over /_sim; a states module names it itself.
    if (!wasAccepting) ctx.expect(r["sim-at-cap"], third.refused?.reason === "not-accepting", `simulating an interview in a study not accepting responses ${third.id ? "created it" : `was refused as ${third.refused?.reason}: ${third.refused?.message}`}, not refused as not accepting (409)`);
    if (third.id) created++;
    for (const held of [second.id!, ...(third.id ? [third.id] : [])]) {
      await complete(ctx, held);
      completed++;
    }
    // Two completed interviews reach the weekly cap of 2 whatever the server counts on start.
    await observe(`${completed} completed interviews against a weekly cap of 2`);
    ctx.expect(r["accepting-at-cap"], s.accepting_responses === false, `with ${completed} completed interviews against a weekly cap of 2, accepting_responses=${s.accepting_responses}`);

    // The monthly cap alone flips it too.
    const monthly = await ctx.states.plantStudy({ name: "Monthly cap probe", monthly_limit: 1, weekly_limit: null });
    const one = await simulate(ctx, monthly.id);
    if (one.id) {
      await complete(ctx, one.id);
      const m = await study(ctx, monthly.id);
      ctx.expect(r["limits-echo"], m.limits.weekly.limit === null, `an unlimited weekly cap reads back as ${m.limits.weekly.limit}`);
      ctx.expect(r["accepting-at-cap"], m.accepting_responses === false, `with 1 completed interview against a monthly cap of 1, accepting_responses=${m.accepting_responses}`);
    }

    // Paused and draft, each without caps and under a weekly, a monthly or both caps far from reached: "active and
    // within all usage limits", so none accepts and none is listed, whatever its caps.
    const CAPS: Array<[string, number | null, number | null]> = [["without caps", null, null], ["under a weekly cap", 50, null], ["under a monthly cap", null, 50], ["under both caps", 50, 50]];
    const inactive = await Promise.all((["paused", "draft"] as const).flatMap((status) => CAPS.map(async ([caps, weekly, monthly]) => ({ status, caps, id: (await ctx.states.plantStudy({ name: `${status} probe ${caps}`, status, weekly_limit: weekly, monthly_limit: monthly })).id }))));
    const active = new Set((await ctx.http.walk("/v1/studies", 100)).items.map((x: any) => x.id));
    for (const { status, caps, id } of inactive) {
      const p = await study(ctx, id);
      ctx.expect(r.paused, p.accepting_responses === false, `a ${status} study ${caps} says accepting_responses=${p.accepting_responses}`);
      ctx.expect(r.paused, !active.has(id), `a ${status} study ${caps} is listed by GET /v1/studies`);
    }
  },
};
