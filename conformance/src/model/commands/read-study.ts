/** `readStudy`: GET /v1/studies/:id: interview_count, used, accepting_responses by the seed's rule on its own numbers. */
import fc from "fast-check";
import { monthStart, weekStart, withinLimits } from "../../judge/windows.ts";
import { r } from "../rules.ts";
import type { Model, World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export class ReadStudy extends Command {
  readonly name = "readStudy";
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    const reply = await w.http.req(`/v1/studies/${m.study!.id}`);
    w.judge.conforms(reply, `GET /v1/studies/${m.study!.id}`);
    if (reply.status !== 200) throw new Error(`GET /v1/studies/${m.study!.id} of the sequence's study answered ${reply.status}`);
    const s = reply.body;
    const base = m.study!.base;
    const done = base.interviewCount + [...m.interviews.values()].filter((i) => i.status === "completed").length;
    w.judge.expect(r["interview-count"], s.interview_count === done, `interview_count is ${s.interview_count}, but ${done} of the study's interviews have completed${base.interviewCount ? ` (${base.interviewCount} before the sequence)` : ""}`, reply);
    // Each window counts the interviews created in it (our pin: from creation); the seed's reading allows counting at
    // completion too, so its bounds are: the completed ones created in it, up to every one created in it plus the ones
    // created before it and completed since.
    const now = Date.now();
    const all = [...m.interviews.values()];
    for (const window of ["weekly", "monthly"] as const) {
      const start = window === "weekly" ? weekStart(now) : monthStart(now);
      const used = s.limits?.[window]?.used;
      const before = window === "weekly" ? base.weeklyUsed : base.monthlyUsed;
      const inside = all.filter((i) => i.created >= start);
      // The seed fixes the week (Monday to Sunday, UTC) but not the billing period: a monthly period holding now may
      // have begun at any instant of the last 31 days. So the seed's bounds count, at least, the completed interviews
      // created during the sequence (seconds old; a backdated one is hours old or more), and at most every interview
      // of the last 31 days and those completed since; our calendar month is the contract's `used-on-start`.
      const [certain, possible] = window === "weekly" ? [inside, inside] : [all.filter((i) => i.created > now - HOUR), all.filter((i) => i.created > now - 31 * DAY)];
      const outsideDone = all.filter((i) => !possible.includes(i) && i.status === "completed").length;
      const low = before + certain.filter((i) => i.status === "completed").length;
      const high = before + possible.length + outsideDone;
      const earlier = all.length - certain.length;
      w.judge.expect(earlier ? r.window : r["used-bounds"], typeof used === "number" && used >= low && used <= high, `limits.${window}.used is ${used}, outside ${low} (completed, created ${window === "weekly" ? "this week" : "during the sequence"}) to ${high}${earlier ? ` (${earlier} of the sequence's interviews were started before ${window === "weekly" ? "the week began" : "it, backdated"}, ${outsideDone} of them completed since${window === "weekly" ? "" : " and older than 31 days"})` : ""}`, reply);
      w.judge.expect(r["used-on-start"], used === before + inside.length, `limits.${window}.used is ${used}, not the ${before + inside.length} interviews created in the ${window === "weekly" ? "week" : "calendar month"}`, reply);
    }
    const want = s.status === "active" && withinLimits(s);
    w.judge.expect(r.accepting, s.accepting_responses === want, `accepting_responses is ${s.accepting_responses} with status ${s.status} and limits ${JSON.stringify(s.limits)}: the seed's rule gives ${want}`, reply);
  }
}

export const readStudy: CommandSpec = {
  name: "readStudy",
  doc: "GET /v1/studies/:id: interview_count, used, accepting_responses by the seed's rule on its own numbers",
  statements: ["study.interview-count", "study.accepting", "states.accepting", "study.weekly-used", "study.monthly-used", "endpoints.get-study"],
  needs: [],
  weight: 1,
  draw: () => fc.constant(new ReadStudy()),
};
