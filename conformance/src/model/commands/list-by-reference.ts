/** `listByReference`: GET /v1/interviews?study_id=&reference_id=: exactly the interviews started with that reference id (directly or through the study's link). */
import fc from "fast-check";
import { r } from "../rules.ts";
import type { Model, World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";

/** The study's interviews filtered by the reference id one of them was started with: exactly those started with it. */
export class ListByReference extends Command {
  readonly name = "listByReference";
  constructor(readonly pick: number) {
    super();
  }
  override check = (m: Readonly<Model>) => m.study !== null && m.interviews.size > 0;
  protected async act(m: Model, w: World) {
    const all = [...m.interviews];
    const reference = all[this.pick % all.length][1].reference;
    const query = `/v1/interviews?study_id=${m.study!.id}&reference_id=${encodeURIComponent(reference)}`;
    const walk = await w.http.walk(query, 100);
    for (const page of walk.pages) w.judge.conforms(page, `GET ${query}`);
    const got = walk.items.map((i: any) => i.id).filter((id: string) => !m.study!.base.before.has(id)).sort();
    const want = all.filter(([, i]) => i.reference === reference).map(([id]) => id).sort();
    w.judge.expect(r["interview-filter"], JSON.stringify(got) === JSON.stringify(want), `${query} lists [${got.join(", ")}], not the interviews started with reference_id ${reference} [${want.join(", ")}]`, walk.pages[0], { want, got });
  }
  override toString = () => `listByReference(#${this.pick})`;
}

export const listByReference: CommandSpec = {
  name: "listByReference",
  doc: "GET /v1/interviews?study_id=&reference_id=: exactly the interviews started with that reference id (directly or through the study's link)",
  statements: ["endpoints.list-interviews", "interview.reference-id", "study.reference-tag"],
  needs: [],
  weight: 1,
  draw: () => fc.nat(7).map((n) => new ListByReference(n)),
};
