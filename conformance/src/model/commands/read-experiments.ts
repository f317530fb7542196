/** `readExperiments`: GET /v1/experiments twice: Deprecation and Sunset each time, the sequence's study listed exactly when active, with its retrieval's limits and accepting_responses; read in the seed's terms, what it shows as on the study and its interviews in all. */
import fc from "fast-check";
import { entriesOf } from "../../judge/entries.ts";
import { asOnStudy, countDifferences, reported } from "../../judge/experiments-report.ts";
import { firstDifference } from "../../judge/same.ts";
import { r } from "../rules.ts";
import type { Model, World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";

/** The deprecated report, read twice: its headers every time, and the sequence's study as its retrieval shows it. */
export class ReadExperiments extends Command {
  readonly name = "readExperiments";
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    const study = await w.http.req(`/v1/studies/${m.study!.id}`);
    for (const read of [1, 2]) {
      const reply = await w.http.req("/v1/experiments");
      w.judge.conforms(reply, "GET /v1/experiments");
      const headers = ["deprecation", "sunset"].filter((h) => !reply.headers.get(h));
      w.judge.expect(r.experiments, reply.status === 200 && headers.length === 0, `read ${read} of GET /v1/experiments answered ${reply.status}${headers.length ? ` without ${headers.join(" and ")}` : ""}`, reply);
      if (reply.status !== 200) return;
      // Our contract's shape (entries under data) can say how many times; any other only whether it is there.
      const ours = Array.isArray(reply.body?.data);
      const entries: any[] = entriesOf(reply.body, m.study!.id);
      const active = study.body?.status === "active";
      w.judge.expect(r.experiments, entries.length === (active ? 1 : 0), `read ${read}: the sequence's ${study.body?.status} study is ${ours ? `listed ${entries.length} times` : entries.length ? "in" : "not in"} GET /v1/experiments (all active experiments)`, reply);
      // Read in the seed's terms (our contract's shape, or the states module's reading): the fields it shows as on the
      // study, and, for a study the sequence planted, its interviews in all (the sequence's, whatever their status).
      const reading = w.ctx.states.readExperiments(reply.body)?.experiments.find((e) => e.id === m.study!.id);
      if (reading) {
        const shown = reported(reading.study);
        const differs = firstDifference(shown, asOnStudy(shown, study.body));
        const base = m.study!.base;
        const total = base.interviewCount === 0 && base.before.size === 0 ? m.interviews.size : undefined;
        const byStatus = reported(reading.interviews);
        const sum = (["started", "processing", "completed"] as const).every((k) => typeof byStatus[k] === "number") ? byStatus.started! + byStatus.processing! + byStatus.completed! : undefined;
        const problems = [
          differs && `as on its retrieval ${differs}`,
          ...countDifferences(reading.interviews, { total }, "interviews"),
          sum !== undefined && total !== undefined && sum !== total && `interviews by status add up to ${sum}, not the ${total} the study holds`,
        ].filter(Boolean);
        w.judge.expect(r.experiments, problems.length === 0, `read ${read}: the sequence's study in GET /v1/experiments: ${problems.join("; ")}`, reply, { reading });
      } else if (entries[0] && "limits" in entries[0] && "accepting_responses" in entries[0]) w.judge.expect(r.experiments, JSON.stringify(entries[0].limits) === JSON.stringify(study.body?.limits) && entries[0].accepting_responses === study.body?.accepting_responses, `read ${read}: GET /v1/experiments shows the study with limits ${JSON.stringify(entries[0].limits)} and accepting_responses ${entries[0].accepting_responses}; its retrieval shows ${JSON.stringify(study.body?.limits)} and ${study.body?.accepting_responses}`, reply);
      const inactive = m.inactiveStudies.filter((id) => entriesOf(reply.body, id).length > 0);
      w.judge.expect(r.experiments, inactive.length === 0, `read ${read}: GET /v1/experiments holds paused or draft studies planted by the sequence: ${inactive.join(", ")}`, reply);
    }
  }
}

export const readExperiments: CommandSpec = {
  name: "readExperiments",
  doc: "GET /v1/experiments twice: Deprecation and Sunset each time, the sequence's study listed exactly when active, with its retrieval's limits and accepting_responses",
  statements: ["endpoints.experiments", "versioning.deprecated"],
  needs: [],
  weight: 1,
  draw: (o) => (o.experimentsRemoved ? "GET /v1/experiments is removed, as the seed allows past July 1, 2026" : fc.constant(new ReadExperiments())),
};
