/** `completeInterview`: a held interview completed on demand (one is started first when none is open); waits for the delivery the model expects, then reads the completed list. */
import fc from "fast-check";
import { completeNow, judgeFiltered, start } from "../interview-steps.ts";
import type { Model, World } from "../world.ts";
import { Command, awaitDelivery, openInterviews, type CommandSpec } from "./base.ts";

export class CompleteInterview extends Command {
  readonly name = "completeInterview";
  constructor(readonly pick: number) {
    super();
  }
  // With no interview open, one is started (held) first: a completion is always reachable from any state.
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    if (openInterviews(m).length === 0 && !(await start(m, w, false))) return; // the study is at its cap
    const open = openInterviews(m);
    const [id] = open[this.pick % open.length];
    await completeNow(m, w, id);
    if (m.expected.has(id)) await awaitDelivery(m, w, id, this.toString());
    // The completion moves the interview between the filtered lists at once.
    await judgeFiltered(m, w, "completed");
  }
  override toString = () => `completeInterview(#${this.pick})`;
}

export const completeInterview: CommandSpec = {
  name: "completeInterview",
  doc: "a held interview completed on demand (one is started first when none is open); waits for the delivery the model expects, then reads the completed list",
  statements: ["events.emitted-by", "events.sent-to", "events.signature", "transitions.interview", "payload.interview-id", "endpoints.interview-id", "study.interview-count"],
  needs: ["plant-interview", "hold", "complete"],
  weight: 4,
  draw: () => fc.nat(7).map((n) => new CompleteInterview(n)),
};
