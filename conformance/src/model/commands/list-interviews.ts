/** `listInterviews`: GET /v1/interviews?study_id=&status=: exactly the sequence's interviews in that status. */
import fc from "fast-check";
import { judgeFiltered } from "../interview-steps.ts";
import type { Model, World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";

export class ListInterviews extends Command {
  readonly name = "listInterviews";
  constructor(readonly status: "completed" | "started" | null) {
    super();
  }
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    await judgeFiltered(m, w, this.status);
  }
  override toString = () => `listInterviews(${this.status ?? "any status"})`;
}

export const listInterviews: CommandSpec = {
  name: "listInterviews",
  doc: "GET /v1/interviews?study_id=&status=: exactly the sequence's interviews in that status",
  statements: ["endpoints.list-interviews", "interview.study-id"],
  needs: [],
  weight: 1,
  draw: () => fc.constantFrom<"completed" | "started" | null>("completed", "started", null).map((s) => new ListInterviews(s)),
};
