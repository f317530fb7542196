/** `readInterview`: GET /v1/interviews/:id: the status the sequence left it in, the reference_id it was started with, created_at unchanged, completed_at set once and never before started_at. */
import fc from "fast-check";
import { judgeTimestamps } from "../interview-steps.ts";
import { r } from "../rules.ts";
import type { Model, World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";

export class ReadInterview extends Command {
  readonly name = "readInterview";
  constructor(readonly pick: number) {
    super();
  }
  override check = (m: Readonly<Model>) => m.interviews.size > 0;
  protected async act(m: Model, w: World) {
    const all = [...m.interviews];
    const [id, model] = all[this.pick % all.length];
    const reply = await w.http.req(`/v1/interviews/${id}`);
    w.judge.conforms(reply, `GET /v1/interviews/${id}`);
    const i = reply.body;
    // Completed is final; a held interview is not completed (started, or processing where an implementation says so).
    const ok = reply.status === 200 && (model.status === "completed" ? i?.status === "completed" : i?.status !== "completed");
    w.judge.expect(r["interview-status"], ok, `GET /v1/interviews/${id} answered ${reply.status} with status ${JSON.stringify(i?.status)}, but the sequence left it ${model.status}`, reply);
    if (reply.status !== 200) return;
    w.judge.expect(r["reference-id"], i.reference_id === model.reference, `interview ${id} was started with reference_id ${model.reference}${model.reference.endsWith("_link") ? " (the reference_id query parameter of the study's link it was opened through)" : ""}; it reads ${JSON.stringify(i.reference_id)}`, reply);
    judgeTimestamps(w, id, model, i, reply);
  }
  override toString = () => `readInterview(#${this.pick})`;
}

export const readInterview: CommandSpec = {
  name: "readInterview",
  doc: "GET /v1/interviews/:id: the status the sequence left it in, the reference_id it was started with, created_at unchanged, completed_at set once and never before started_at",
  statements: ["endpoints.get-interview", "interview.status", "states.interview", "interview.reference-id", "study.reference-tag", "interview.created-at", "interview.completed-at", "interview.started-at"],
  needs: [],
  weight: 1,
  draw: () => fc.nat(7).map((n) => new ReadInterview(n)),
};
