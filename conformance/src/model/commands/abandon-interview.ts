/** `abandonInterview`: an open interview abandoned: the respondent left; it keeps its status, never completes, is never delivered. */
import fc from "fast-check";
import { r } from "../rules.ts";
import type { Model, World } from "../world.ts";
import { Command, openInterviews, type CommandSpec } from "./base.ts";

export class AbandonInterview extends Command {
  readonly name = "abandonInterview";
  constructor(readonly pick: number) {
    super();
  }
  override check = (m: Readonly<Model>) => openInterviews(m).length > 0;
  protected async act(m: Model, w: World) {
    const open = openInterviews(m);
    const [id, interview] = open[this.pick % open.length];
    const left = await w.ctx.states.abandonInterview(id, w.project);
    interview.abandoned = true;
    m.forbidden.add(id);
    w.judge.expect(r["abandoned-silent"], left.status !== "completed", `an interview abandoned before completing reads ${JSON.stringify(left.status)}`);
  }
  override toString = () => `abandonInterview(#${this.pick})`;
}

export const abandonInterview: CommandSpec = {
  name: "abandonInterview",
  doc: "an open interview abandoned: the respondent left; it keeps its status, never completes, is never delivered",
  statements: ["events.emitted-by", "transitions.interview", "states.interview"],
  needs: ["plant-interview", "hold", "abandon"],
  weight: 1,
  draw: () => fc.nat(7).map((n) => new AbandonInterview(n)),
};
