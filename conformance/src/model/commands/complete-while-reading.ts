/** `completeWhileReading`: an interview completed on the service's own timer while the suite polls it: statuses must go forward, the delivery after completion. */
import fc from "fast-check";
import { sleep } from "../../judge/timing.ts";
import { refusal } from "../../states/types.ts";
import { RANK } from "../interview-steps.ts";
import { r } from "../rules.ts";
import type { Model, World } from "../world.ts";
import { Command, awaitDelivery, completed, type CommandSpec } from "./base.ts";

/** An interview run on the service's own timer while the suite reads it: the statuses seen must follow the seed's path. */
export class CompleteWhileReading extends Command {
  readonly name = "completeWhileReading";
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    const reference = `model_${m.seq}_timed`;
    let id: string;
    try {
      id = (await w.ctx.states.plantInterview({ study_id: m.study!.id, reference_id: reference }, w.project)).id;
    } catch (err) {
      if (refusal(err)?.reason === "not-accepting") return;
      throw err;
    }
    m.interviews.set(id, { status: "started", created: Date.now(), reference });
    const seen: string[] = [];
    const deadline = Date.now() + (w.ctx.options.webhookWaitMs ?? 35_000);
    for (;;) {
      const read = await w.http.req(`/v1/interviews/${id}`);
      const status = read.body?.status;
      if (read.status === 200 && seen[seen.length - 1] !== status) seen.push(status);
      const back = seen.length > 1 && RANK[seen[seen.length - 1]] < RANK[seen[seen.length - 2]];
      w.judge.expect(r["interview-status"], read.status === 200 && status in RANK && !back, read.status !== 200 ? `GET /v1/interviews/${id} of a running interview answered ${read.status}` : back ? `the statuses went ${seen.join(" -> ")}: backwards` : `status ${JSON.stringify(status)} is not a seed status`, read);
      if (status === "completed" || read.status !== 200 || back || Date.now() > deadline) break;
      await sleep(15);
    }
    if (seen[seen.length - 1] !== "completed") throw new Error(`interview ${id} never completed on its own within the wait (${seen.join(" -> ")})`);
    // It completed during this command, under the webhook configured now.
    completed(m, w, id);
    if (m.expected.has(id)) await awaitDelivery(m, w, id, this.toString());
  }
}

export const completeWhileReading: CommandSpec = {
  name: "completeWhileReading",
  doc: "an interview completed on the service's own timer while the suite polls it: statuses must go forward, the delivery after completion",
  statements: ["transitions.interview", "states.interview", "interview.status", "events.emitted-by", "payload.status"],
  needs: ["plant-interview"],
  weight: 1,
  draw: () => fc.constant(new CompleteWhileReading()),
};
