/** Model commands on the project's one webhook: PUT (create, change URL, unsubscribe), GET and DELETE. */
import { r } from "../rules.ts";
import { hookPath, type Model, type World } from "../world.ts";
import { Command } from "./base.ts";

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
    const wrong = existed
      ? reply.status !== 200 ? `PUT on an existing webhook answered ${reply.status}, not 200` : secret !== undefined ? "PUT on an existing webhook showed the signing secret again" : ""
      : reply.status !== 201 ? `the first PUT (no webhook configured) answered ${reply.status}, not 201` : typeof secret !== "string" || !secret ? "the creating PUT carried no signing_secret" : "";
    w.judge.expect(r["webhook-state"], !wrong, wrong, reply);
    if (reply.status >= 300) return;
    m.webhook = { path, subscribed: this.subscribed, secret: existed ? m.webhook!.secret : String(secret ?? "") };
  }
  override toString = () => `putWebhook(${this.target === "change" ? "a new URL" : "the same URL"}${this.subscribed ? "" : ", events []"})`;
}

export class GetWebhook extends Command {
  readonly name = "getWebhook";
  protected async act(m: Model, w: World) {
    const reply = await w.http.req("/v1/webhooks");
    w.judge.conforms(reply, "GET /v1/webhooks");
    if (!m.webhook) {
      w.judge.expect(r["webhook-state"], reply.status === 404, `GET /v1/webhooks with no webhook configured (never, or deleted) answered ${reply.status}, not 404`, reply);
      return;
    }
    const url = reply.body?.url ? new URL(reply.body.url).pathname : undefined;
    const wrong = reply.status !== 200 ? `GET /v1/webhooks of a configured webhook answered ${reply.status}`
      : url !== m.webhook.path ? `GET /v1/webhooks shows the url ${reply.body?.url}, not the last PUT's (path ${m.webhook.path})`
      : "signing_secret" in (reply.body ?? {}) || (m.webhook.secret && reply.text.includes(m.webhook.secret)) ? "GET /v1/webhooks showed the signing secret"
      : "";
    w.judge.expect(r["webhook-state"], !wrong, wrong, reply);
  }
}

export class DeleteWebhook extends Command {
  readonly name = "deleteWebhook";
  protected async act(m: Model, w: World) {
    const reply = await w.http.req("/v1/webhooks", { method: "DELETE" });
    w.judge.conforms(reply, "DELETE /v1/webhooks");
    // With none configured the seed says nothing of DELETE's answer; with one it is 204, empty.
    if (m.webhook) w.judge.expect(r["webhook-state"], reply.status === 204 && reply.text === "", `DELETE /v1/webhooks of a configured webhook answered ${reply.status}${reply.text ? ` with a body ${reply.text.slice(0, 80)}` : ""}, not 204 with an empty body`, reply);
    if (reply.status < 300) m.webhook = null;
  }
}
