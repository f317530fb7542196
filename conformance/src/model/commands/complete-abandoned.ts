/** `completeAbandoned`: completing an abandoned interview: refused as final (409, a contract pin), still not completed, nothing delivered. */
import fc from "fast-check";
import { refusal } from "../../states/types.ts";
import { r } from "../rules.ts";
import type { Model, World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";

export class CompleteAbandoned extends Command {
  readonly name = "completeAbandoned";
  constructor(readonly pick: number) {
    super();
  }
  override check = (m: Readonly<Model>) => [...m.interviews.values()].some((i) => i.abandoned);
  protected async act(m: Model, w: World) {
    const gone = [...m.interviews].filter(([, i]) => i.abandoned);
    const [id] = gone[this.pick % gone.length];
    let reason = "completed";
    try {
      await w.ctx.states.completeInterview(id, w.project);
    } catch (err) {
      const refused = refusal(err);
      if (!refused) throw err;
      reason = refused.reason;
    }
    w.judge.expect(r["abandon-final"], reason === "final", `completing an abandoned interview was ${reason === "completed" ? "accepted" : `refused as ${reason}`}, not refused as final (409)`);
    const read = await w.http.req(`/v1/interviews/${id}`);
    w.judge.expect(r["abandoned-silent"], read.status === 200 && read.body?.status !== "completed", `an abandoned interview reads ${read.status} ${JSON.stringify(read.body?.status)} after a request to complete it`, read);
  }
  override toString = () => `completeAbandoned(#${this.pick})`;
}

export const completeAbandoned: CommandSpec = {
  name: "completeAbandoned",
  doc: "completing an abandoned interview: refused as final (409, a contract pin), still not completed, nothing delivered",
  statements: ["events.emitted-by", "transitions.interview"],
  needs: ["plant-interview", "hold", "abandon", "complete"],
  weight: 1,
  draw: () => fc.nat(7).map((n) => new CompleteAbandoned(n)),
};
