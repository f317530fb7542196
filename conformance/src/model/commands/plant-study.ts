/** `plantStudy`: a study planted active, paused or draft with a weekly cap: listed exactly when active; an active one takes the next interviews. */
import fc from "fast-check";
import { r } from "../rules.ts";
import { EMPTY_BASE, type Model, type World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";

export class PlantStudy extends Command {
  readonly name = "plantStudy";
  constructor(readonly status: "active" | "paused" | "draft", readonly weekly: number | null) {
    super();
  }
  protected async act(m: Model, w: World) {
    const { id } = await w.ctx.states.plantStudy({ name: `Model study ${m.seq}`, status: this.status, weekly_limit: this.weekly, monthly_limit: null }, w.project);
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

export const plantStudy: CommandSpec = {
  name: "plantStudy",
  doc: "a study planted active, paused or draft with a weekly cap: listed exactly when active; an active one takes the next interviews",
  statements: ["endpoints.list-studies", "states.study", "study.status"],
  needs: ["plant-study"],
  weight: 1,
  draw: () => fc.tuple(fc.constantFrom<"active" | "paused" | "draft">("active", "paused", "draft"), fc.constantFrom(null, 0, 1, 2, 3)).map(([s, w]) => new PlantStudy(s, w)),
};
