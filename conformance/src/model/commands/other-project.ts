/** `otherProject`: the other project's key: sets its own webhook, reads this sequence's study, interviews and chat (404). */
import fc from "fast-check";
import { foreignReads } from "../foreign-reads.ts";
import { r } from "../rules.ts";
import { hookPath, type Model, type World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";

/** The other project: its webhook (never told of this project's interviews) and its reads of this sequence's ids. */
export class OtherProject extends Command {
  readonly name = "otherProject";
  constructor(readonly configure: boolean) {
    super();
  }
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    if (!w.other) return;
    if (this.configure && !m.otherWebhook) {
      const url = new URL(w.receiver.url);
      url.pathname = hookPath(m, "other");
      const put = await w.other.req("/v1/webhooks", { method: "PUT", body: { url: url.toString(), events: ["interview.completed"] } });
      if (put.status < 300) m.otherWebhook = { path: url.pathname };
    }
    for (const [what, reply] of await foreignReads(m, w.other.apiKey, w)) w.judge.expect(r.isolation, reply.status === 404, `the other project's key read this project's ${what} (${reply.path}) as ${reply.status}, not 404`, reply);
  }
  override toString = () => `otherProject(${this.configure ? "configure its webhook, " : ""}read this project's ids)`;
}

export const otherProject: CommandSpec = {
  name: "otherProject",
  doc: "the other project's key: sets its own webhook, reads this sequence's study, interviews and chat (404)",
  statements: ["auth.scope", "errors.retrieval-404", "service.key-scope", "events.sent-to"],
  needs: [],
  weight: 1,
  draw: (o) => (o.withOther ? fc.boolean().map((b) => new OtherProject(b)) : "needs --other-key"),
};
