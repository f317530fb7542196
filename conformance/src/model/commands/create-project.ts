/** `createProject`: a project created during the run (at most two, shared by its sequences; nothing is planted in them): its lists hold nothing of ours, our ids read 404, no webhook until it sets one, and that webhook never hears of our interviews. */
import fc from "fast-check";
import { foreignReads } from "../foreign-reads.ts";
import { r } from "../rules.ts";
import { hookPath, type Model, type World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";

/**
 * A project created during the run (at most two, shared by the sequences): it lists nothing of this project's, reads this sequence's ids as 404, has no
 * webhook until it sets one, and the webhook it sets never hears of this project's interviews (judged in settle).
 */
export class CreateProject extends Command {
  readonly name = "createProject";
  override check = (m: Readonly<Model>) => m.projects.length < 2;
  protected async act(m: Model, w: World) {
    if (w.projectPool.length < 2) w.projectPool.push((await w.ctx.states.createProject(`Model project ${m.seq}`, w.project)).api_key);
    const key = w.projectPool[m.projects.length % w.projectPool.length];
    const hook = await w.http.req("/v1/webhooks", { key });
    w.judge.expect(r["project-isolation"], hook.status === 404, `GET /v1/webhooks of a project created during the sequence answered ${hook.status}, not 404 (none configured)`, hook);
    const url = new URL(w.receiver.url);
    url.pathname = hookPath(m, `project${m.projects.length}`);
    const put = await w.http.req("/v1/webhooks", { method: "PUT", key, body: { url: url.toString(), events: ["interview.completed"] } });
    m.projects.push({ apiKey: key, hookPath: put.status < 300 ? url.pathname : null });
    for (const [what, reply] of await foreignReads(m, key, w)) w.judge.expect(r["project-isolation"], reply.status === 404, `a project created during the sequence read this project's ${what} (${reply.path}) as ${reply.status}, not 404`, reply);
    const mine = new Set([...m.interviews.keys(), ...m.chats.map((c) => c.id), ...(m.study ? [m.study.id] : [])]);
    // A target that needs study_id on the interview list is asked for this project's study's interviews: with the
    // other key they are none of its own (a list with none of them, or a refusal of a study it does not have).
    const scoped = m.study !== null && (await w.http.needsStudyId({ key }));
    const lists = [{ list: "/v1/studies" }, scoped ? { list: `/v1/interviews?study_id=${m.study!.id}`, ofStudy: true } : { list: "/v1/interviews" }, { list: "/v1/chats" }];
    for (const { list, ofStudy = false } of lists) {
      const reply = await w.http.req(`${list}${ofStudy ? "&" : "?"}limit=100`, { key });
      const leaked = (reply.body?.data ?? []).filter((x: any) => mine.has(x.id)).map((x: any) => x.id);
      const answered = reply.status === 200 || (ofStudy && (reply.status === 400 || reply.status === 404));
      w.judge.expect(r["project-isolation"], answered && leaked.length === 0, `${list} with the key of a project created during the sequence answered ${reply.status}${leaked.length ? ` listing this project's ${leaked.join(", ")}` : ""}`, reply);
    }
  }
}

export const createProject: CommandSpec = {
  name: "createProject",
  doc: "a project created during the run (at most two, shared by its sequences; nothing is planted in them): its lists hold nothing of ours, our ids read 404, no webhook until it sets one, and that webhook never hears of our interviews",
  statements: ["auth.scope", "errors.retrieval-404", "service.key-scope", "events.sent-to", "errors.webhook-404"],
  needs: ["create-project"],
  weight: 1,
  draw: () => fc.constant(new CreateProject()),
};
