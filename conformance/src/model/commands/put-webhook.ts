/** `putWebhook`: PUT /v1/webhooks to the other of two receiver URLs (a URL change when one is set) or the same one, subscribed or with `events: []`. */
import fc from "fast-check";
import { webhookAnswerProblem } from "../../judge/shown.ts";
import { r } from "../rules.ts";
import { hookPath, type Model, type World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";

export class PutWebhook extends Command {
  readonly name = "putWebhook";
  /** `change`: to the other of the two receiver URLs than the one configured (a URL change when one is set). */
  constructor(readonly target: "change" | "same", readonly subscribed: boolean) {
    super();
  }
  protected async act(m: Model, w: World) {
    const [a, b] = [hookPath(m, "a"), hookPath(m, "b")];
    const current = m.webhook?.path ?? b;
    const path = this.target === "same" ? (m.webhook?.path ?? a) : current === a ? b : a;
    const url = new URL(w.receiver.url);
    url.pathname = path;
    const reply = await w.http.req("/v1/webhooks", { method: "PUT", body: { url: url.toString(), events: this.subscribed ? ["interview.completed"] : [] } });
    w.judge.conforms(reply, "PUT /v1/webhooks");
    if (!this.subscribed && reply.status === 400) return; // events: [] may be refused (Events: only if subscribed); nothing changes
    const existed = m.webhook !== null;
    const secret = reply.body?.signing_secret;
    // The secret's rules are the checks' own (judge/shown.ts): in the 201, never in an update.
    const shown = webhookAnswerProblem("PUT", existed ? 200 : 201, reply.body);
    const wrong = existed
      ? reply.status !== 200 ? `PUT on an existing webhook answered ${reply.status}, not 200` : shown ? "PUT on an existing webhook showed the signing secret again" : ""
      : reply.status !== 201 ? `the first PUT (no webhook configured) answered ${reply.status}, not 201` : shown ? "the creating PUT carried no signing_secret" : "";
    w.judge.expect(r["webhook-state"], !wrong, wrong, reply);
    if (reply.status >= 300) return;
    m.webhook = { path, subscribed: this.subscribed, secret: existed ? m.webhook!.secret : String(secret ?? "") };
  }
  override toString = () => `putWebhook(${this.target === "change" ? "a new URL" : "the same URL"}${this.subscribed ? "" : ", events []"})`;
}

export const putWebhook: CommandSpec = {
  name: "putWebhook",
  doc: "PUT /v1/webhooks to the other of two receiver URLs (a URL change when one is set) or the same one, subscribed or with `events: []`",
  statements: ["endpoints.put-webhook", "webhook-config.secret", "webhook-config.one", "limits.one-webhook", "errors.201", "events.sent-to", "webhook-config.events", "limits.subscription"],
  needs: [],
  weight: 3,
  draw: () => fc.tuple(fc.constantFrom<"change" | "same">("change", "change", "change", "same"), fc.constantFrom(true, true, true, false)).map(([t, s]) => new PutWebhook(t, s)),
};
