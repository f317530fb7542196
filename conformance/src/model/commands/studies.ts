/** Model commands on studies: read (counts, usage, acceptance by the seed's rule), planted in any status, and the deprecated experiments report. */
import type { Capability } from "../../states/capabilities.ts";
import { monthStart, weekStart } from "../../checks/windows.ts";
import { r } from "../rules.ts";
import { EMPTY_BASE, type Model, type World } from "../world.ts";
import { Command } from "./base.ts";

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
      const outsideDone = all.filter((i) => i.created < start && i.status === "completed").length;
      const low = before + inside.filter((i) => i.status === "completed").length;
      const high = before + inside.length + outsideDone;
      const earlier = all.length - inside.length;
      w.judge.expect(earlier ? r.window : r["used-bounds"], typeof used === "number" && used >= low && used <= high, `limits.${window}.used is ${used}, outside ${low} (completed, created this ${window === "weekly" ? "week" : "month"}) to ${high}${earlier ? ` (${earlier} of the sequence's interviews were started before the window began, ${outsideDone} of them completed since)` : ""}`, reply);
      w.judge.expect(r["used-on-start"], used === before + inside.length, `limits.${window}.used is ${used}, not the ${before + inside.length} interviews created in the window`, reply);
    }
    const within = (["weekly", "monthly"] as const).every((k) => s.limits?.[k]?.limit === null || s.limits?.[k]?.used < s.limits?.[k]?.limit);
    const want = s.status === "active" && within;
    w.judge.expect(r.accepting, s.accepting_responses === want, `accepting_responses is ${s.accepting_responses} with status ${s.status} and limits ${JSON.stringify(s.limits)}: the seed's rule gives ${want}`, reply);
  }
}

export class PlantStudy extends Command {
  readonly name = "plantStudy";
  static override needs: Capability[] = ["plant-study"];
  constructor(readonly status: "active" | "paused" | "draft", readonly weekly: number | null) {
    super();
  }
  protected async act(m: Model, w: World) {
    const { id } = await w.ctx.states.plantStudy({ name: `Model study ${m.seq}`, status: this.status, weekly_limit: this.weekly, monthly_limit: null });
    const listed = (await w.http.walk("/v1/studies", 100)).items.filter((s: any) => s.id === id).length;
    const want = this.status === "active" ? 1 : 0;
    w.judge.expect(r["studies-listed"], listed === want, `a planted ${this.status} study is listed ${listed} times, not ${want}`);
    // Interviews go to the last active study (a paused or draft one accepts none).
    if (this.status === "active") {
      m.study = { id, weekly: this.weekly, monthly: null, base: EMPTY_BASE() };
      m.interviews = new Map();
    } else m.inactiveStudies.push(id);
  }
  override toString = () => `plantStudy(${this.status}, weekly ${this.weekly ?? "unlimited"})`;
}

/** The deprecated report, read twice: its headers every time, and the sequence's study as its retrieval shows it. */
export class ReadExperiments extends Command {
  readonly name = "readExperiments";
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    const study = await w.http.req(`/v1/studies/${m.study!.id}`);
    for (const read of [1, 2]) {
      const reply = await w.http.req("/v1/experiments");
      w.judge.conforms(reply, "GET /v1/experiments");
      const headers = ["deprecation", "sunset"].filter((h) => !reply.headers.get(h));
      w.judge.expect(r.experiments, reply.status === 200 && headers.length === 0, `read ${read} of GET /v1/experiments answered ${reply.status}${headers.length ? ` without ${headers.join(" and ")}` : ""}`, reply);
      if (reply.status !== 200 || !Array.isArray(reply.body?.data)) return;
      const entries = reply.body.data.filter((e: any) => e.id === m.study!.id);
      const active = study.body?.status === "active";
      w.judge.expect(r.experiments, entries.length === (active ? 1 : 0), `read ${read}: the sequence's ${study.body?.status} study is listed ${entries.length} times by GET /v1/experiments (all active experiments)`, reply);
      if (entries[0]) w.judge.expect(r.experiments, JSON.stringify(entries[0].limits) === JSON.stringify(study.body?.limits) && entries[0].accepting_responses === study.body?.accepting_responses, `read ${read}: GET /v1/experiments shows the study with limits ${JSON.stringify(entries[0].limits)} and accepting_responses ${entries[0].accepting_responses}; its retrieval shows ${JSON.stringify(study.body?.limits)} and ${study.body?.accepting_responses}`, reply);
      const inactive = reply.body.data.filter((e: any) => m.inactiveStudies.includes(e.id));
      w.judge.expect(r.experiments, inactive.length === 0, `read ${read}: GET /v1/experiments lists paused or draft studies planted by the sequence: ${inactive.map((e: any) => e.id).join(", ")}`, reply);
    }
  }
}
