/** `completeWithAnswers`: a completion whose attempts the receiver answers as chosen (every class: 2xx, 3xx, 4xx, 5xx, a closed connection, and no answer within the receiver timeout when --webhook-timeout-ms is 3 s or less): retried after the configured delays, at most three times, none after a 2xx (drawn when the retry schedule totals 6 s or less). */
import fc from "fast-check";
import { completeNow, describeAnswer, receiverAnswers, start, watchSchedule } from "../interview-steps.ts";
import type { Model, World } from "../world.ts";
import { Command, openInterviews, type CommandSpec } from "./base.ts";

/** A retry schedule this long or shorter is watched inside a sequence; a longer one is the retries check's. */
export const SEQUENCE_RETRY_MS = 6_000;
/** A receiver timeout this short or shorter is drawn as an answer inside a sequence (no answer in time). */
export const SEQUENCE_TIMEOUT_MS = 3_000;

/**
 * An interview completed while the receiver answers its attempts as the sequence chose (a 2xx ends the schedule; a
 * 4xx, a 5xx or no answer within the receiver timeout is retried after the configured delays, at most three times).
 * The whole schedule is watched within the command: the attempts, their spacing, their bytes and signature.
 */
export class CompleteWithAnswers extends Command {
  readonly name = "completeWithAnswers";
  constructor(readonly answers: number[]) {
    super();
  }
  override check = (m: Readonly<Model>) => m.study !== null && m.webhook?.subscribed === true;
  protected async act(m: Model, w: World) {
    if (openInterviews(m).length === 0 && !(await start(m, w, false))) return;
    const [id] = openInterviews(m)[0];
    m.answers.set(id, this.answers);
    await completeNow(m, w, id);
    await watchSchedule(m, w, id, this.answers);
    m.answers.delete(id);
  }
  override toString = () => `completeWithAnswers(${this.answers.map(describeAnswer).join(", ")})`;
}

export const completeWithAnswers: CommandSpec = {
  name: "completeWithAnswers",
  doc: "a completion whose attempts the receiver answers as chosen (every class: 2xx, 3xx, 4xx, 5xx, a closed connection, and no answer within the receiver timeout when --webhook-timeout-ms is 3 s or less): retried after the configured delays, at most three times, none after a 2xx (drawn when the retry schedule totals 6 s or less)",
  statements: ["delivery.retries", "delivery.dropped", "limits.retries", "delivery.duplicates", "events.signature", "delivery.timeout", "limits.receiver-timeout"],
  needs: ["plant-interview", "hold", "complete"],
  weight: 1,
  draw: (o, note) => {
    if (o.retryDelaysMs.reduce((a, b) => a + b, 0) > SEQUENCE_RETRY_MS) return `the retry schedule ${o.retryDelaysMs.join(", ")} ms is too long for a sequence; the retries check watches it`;
    // No answer within the receiver timeout is drawn too when that timeout is short enough for a sequence.
    const statuses = receiverAnswers(o.receiverTimeoutMs <= SEQUENCE_TIMEOUT_MS);
    if (o.receiverTimeoutMs > SEQUENCE_TIMEOUT_MS) note(`no answer within the receiver timeout in completeWithAnswers (the ${o.receiverTimeoutMs} ms timeout, --webhook-timeout-ms, is too long for a sequence; the retries check observes it with --slow-receiver)`);
    return fc.array(fc.constantFrom(...statuses), { minLength: 1, maxLength: 4 }).map((a) => new CompleteWithAnswers(a));
  },
};
