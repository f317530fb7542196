/** `completeSeries`: two events on one webhook: the first answered as drawn (retried, or dropped after its retries), the second completed during the first's retries or after its drop; each schedule judged on its own. */
import fc from "fast-check";
import { completeNow, describeAnswer, receiverAnswers, start, watchSchedule } from "../interview-steps.ts";
import type { Model, World } from "../world.ts";
import { Command, deliveriesOf, openInterviews, type CommandSpec } from "./base.ts";
import { SEQUENCE_RETRY_MS, SEQUENCE_TIMEOUT_MS } from "./complete-with-answers.ts";
import { sleep } from "../../judge/timing.ts";

/**
 * Several events of one webhook in a row: a failing event's retries (or its drop once they are exhausted) must not
 * touch the next event, which is delivered and retried on its own schedule, as if it were alone.
 */
export class CompleteSeries extends Command {
  readonly name = "completeSeries";
  constructor(readonly first: number[], readonly second: number[], readonly when: "during the retries" | "after the drop") {
    super();
  }
  override check = (m: Readonly<Model>) => m.study !== null && m.webhook?.subscribed === true;
  protected async act(m: Model, w: World) {
    while (openInterviews(m).length < 2 && (await start(m, w, false)));
    const open = openInterviews(m);
    if (open.length < 2) return; // the study is at its cap
    const [[a], [b]] = open;
    m.answers.set(a, this.first);
    m.answers.set(b, this.second);
    await completeNow(m, w, a);
    const firstSchedule = watchSchedule(m, w, a, this.first);
    if (this.when === "after the drop") await firstSchedule;
    else {
      // Once its first attempt has come (and failed, or not), the second event starts while the first may be retrying.
      const deadline = Date.now() + (w.ctx.options.webhookWaitMs ?? 35_000);
      while (deliveriesOf(m, w, a).length === 0 && Date.now() < deadline) await sleep(20);
    }
    await completeNow(m, w, b);
    await Promise.all([firstSchedule, watchSchedule(m, w, b, this.second)]);
    m.answers.delete(a);
    m.answers.delete(b);
  }
  override toString = () => `completeSeries([${this.first.map(describeAnswer).join(", ")}], then ${this.when} [${this.second.map(describeAnswer).join(", ")}])`;
}

export const completeSeries: CommandSpec = {
  name: "completeSeries",
  doc: "two events on one webhook: the first answered as drawn (often failing until it is dropped), the second completed during the first's retries or after its drop; each delivered and retried on its own schedule (drawn when the retry schedule totals 6 s or less)",
  statements: ["delivery.retries", "delivery.dropped", "limits.retries", "events.sent-to", "events.signature", "delivery.duplicates"],
  needs: ["plant-interview", "hold", "complete"],
  weight: 1,
  draw: (o) => {
    if (o.retryDelaysMs.reduce((a, b) => a + b, 0) > SEQUENCE_RETRY_MS) return `the retry schedule ${o.retryDelaysMs.join(", ")} ms is too long for a sequence`;
    const answers = fc.array(fc.constantFrom(...receiverAnswers(o.receiverTimeoutMs <= SEQUENCE_TIMEOUT_MS)), { minLength: 1, maxLength: 4 });
    // Mostly a first event that fails every attempt, so it is dropped.
    const failing = fc.oneof({ arbitrary: fc.constant(new Array(o.retryDelaysMs.length + 1).fill(500)), weight: 2 }, { arbitrary: answers, weight: 1 });
    return fc.tuple(failing, answers, fc.constantFrom<"during the retries" | "after the drop">("during the retries", "after the drop")).map(([a, b, when]) => new CompleteSeries(a, b, when));
  },
};
