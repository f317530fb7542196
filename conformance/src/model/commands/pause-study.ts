/**
 * `pauseStudy`: the sequence's study paused, then active again (the seed shows no study transitions, but a study is
 * active, paused or draft, and may change). While paused it is not listed, not accepting responses, and not in the
 * experiments report; active again, it is listed once and accepting by its caps. The model's study ends as it began.
 */
import fc from "fast-check";
import { entriesOf } from "../../judge/entries.ts";
import { withinLimits } from "../../judge/windows.ts";
import { r } from "../rules.ts";
import type { Model, World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";

export class PauseStudy extends Command {
  readonly name = "pauseStudy";
  constructor(readonly to: "paused" | "draft") {
    super();
  }
  // With plant-study (which it needs) the sequence's study is always one it planted, never the project's own.
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    const id = m.study!.id;
    const observe = async (status: string) => {
      const listed = (await w.http.walk("/v1/studies", 100)).items.filter((s: any) => s.id === id).length;
      const want = status === "active" ? 1 : 0;
      w.judge.expect(r["studies-listed"], listed === want, `the sequence's study set ${status} is listed ${listed} times, not ${want}`);
      const read = await w.http.req(`/v1/studies/${id}`);
      w.judge.conforms(read, `GET /v1/studies/${id}`);
      const s = read.body;
      w.judge.expect(r.accepting, read.status === 200 && s.status === status && s.accepting_responses === (status === "active" && withinLimits(s)), `the sequence's study set ${status} reads status ${JSON.stringify(s?.status)} and accepting_responses ${s?.accepting_responses} with limits ${JSON.stringify(s?.limits)}`, read);
      // A removed deprecated endpoint (past its day, Ctx.experimentsRemoved) reports nothing.
      if (w.ctx.experimentsRemoved) return;
      const report = await w.http.req("/v1/experiments");
      const entries = report.status === 200 ? entriesOf(report.body, id).length : -1;
      w.judge.expect(r.experiments, report.status === 200 && entries === want, `the sequence's study set ${status} is listed ${entries} times in GET /v1/experiments (all active experiments), not ${want}`, report);
    };
    await w.ctx.states.setStudyStatus(id, this.to, w.project);
    await observe(this.to);
    await w.ctx.states.setStudyStatus(id, "active", w.project);
    await observe("active");
  }
  override toString = () => `pauseStudy(${this.to}, then active)`;
}

export const pauseStudy: CommandSpec = {
  name: "pauseStudy",
  doc: "the sequence's study set paused or draft, then active again: unlisted, not accepting and out of the experiments report while inactive; listed once and accepting by its caps once active",
  statements: ["endpoints.list-studies", "states.study", "study.status", "study.accepting", "states.accepting", "endpoints.experiments"],
  needs: ["plant-study", "study-status"],
  weight: 1,
  draw: () => fc.constantFrom<"paused" | "draft">("paused", "paused", "draft").map((s) => new PauseStudy(s)),
};
