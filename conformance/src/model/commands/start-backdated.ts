/** `startBackdated`: an interview planted held at an instant an hour before this week, earlier this week, or an hour before this month (capability created-at): it counts in the windows it falls in. */
import fc from "fast-check";
import { monthStart, weekStart } from "../../judge/windows.ts";
import { refusal } from "../../states/types.ts";
import { r } from "../rules.ts";
import type { Model, World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";

const HOUR = 3_600_000;

/**
 * An interview planted held at a chosen instant: an hour before this week began, earlier this week (when the week is
 * old enough), or an hour before this month began. It counts in the windows it falls in (readStudy judges them).
 */
export class StartBackdated extends Command {
  readonly name = "startBackdated";
  constructor(readonly when: "last week" | "this week" | "last month") {
    super();
  }
  private instant(now: number): number | null {
    const week = weekStart(now);
    if (this.when === "last week") return week - HOUR;
    if (this.when === "last month") return monthStart(now) - HOUR;
    return now - week > 3 * HOUR ? week + HOUR : null;
  }
  // Not within an hour of a window's edge, where the suite's and the server's clocks could disagree on the window.
  override check = (m: Readonly<Model>) => m.study !== null && this.instant(Date.now()) !== null && Date.now() - weekStart(Date.now()) > HOUR && Date.now() - monthStart(Date.now()) > HOUR;
  protected async act(m: Model, w: World) {
    const at = this.instant(Date.now())!;
    const reference = `model_${m.seq}_${m.interviews.size}_backdated`;
    try {
      const planted = await w.ctx.states.plantInterview({ study_id: m.study!.id, hold: true, reference_id: reference, created_at: new Date(at).toISOString() }, w.project);
      m.interviews.set(planted.id, { status: planted.status === "processing" ? "processing" : "started", created: at, reference, createdAt: new Date(at).toISOString() });
    } catch (err) {
      const refused = refusal(err);
      if (!refused) throw err;
      w.judge.expect(r["sim-at-cap"], refused.reason === "not-accepting", `an interview backdated to ${new Date(at).toISOString()} was refused as ${refused.reason} (${refused.message}), not as a study not accepting responses`);
    }
  }
  override toString = () => `startBackdated(${this.when})`;
}

export const startBackdated: CommandSpec = {
  name: "startBackdated",
  doc: "an interview planted held at an instant an hour before this week, earlier this week, or an hour before this month (capability created-at): it counts in the windows it falls in",
  statements: ["study.weekly-used", "study.monthly-used", "limits.caps", "study.accepting"],
  needs: ["plant-interview", "hold", "created-at"],
  weight: 1,
  draw: () => fc.constantFrom<"last week" | "this week" | "last month">("last week", "this week", "last month").map((x) => new StartBackdated(x)),
};
