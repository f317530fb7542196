/** `completeMany`: two or three held interviews completed back to back without waiting: each delivered to the webhook of its moment. */
import fc from "fast-check";
import { completeNow, judgeFiltered, start } from "../interview-steps.ts";
import type { Model, World } from "../world.ts";
import { Command, awaitDelivery, openInterviews, type CommandSpec } from "./base.ts";

/** Several interviews completed back to back, without waiting: each is delivered, to the webhook of its moment. */
export class CompleteMany extends Command {
  readonly name = "completeMany";
  constructor(readonly count: number) {
    super();
  }
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    while (openInterviews(m).length < this.count && (await start(m, w, false)));
    const ids = openInterviews(m).slice(0, this.count).map(([id]) => id);
    await Promise.all(ids.map((id) => completeNow(m, w, id)));
    for (const id of ids) if (m.expected.has(id)) await awaitDelivery(m, w, id, this.toString());
    await judgeFiltered(m, w, "completed");
  }
  override toString = () => `completeMany(${this.count} at once)`;
}

export const completeMany: CommandSpec = {
  name: "completeMany",
  doc: "two or three held interviews completed back to back without waiting: each delivered to the webhook of its moment",
  statements: ["events.emitted-by", "events.sent-to", "events.signature", "delivery.duplicates"],
  needs: ["plant-interview", "hold", "complete"],
  weight: 1,
  draw: () => fc.integer({ min: 2, max: 3 }).map((n) => new CompleteMany(n)),
};
