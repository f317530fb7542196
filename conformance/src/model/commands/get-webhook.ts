/** `getWebhook`: GET /v1/webhooks: the last PUT's url and events, never the secret, or 404. */
import fc from "fast-check";
import { webhookAnswerProblem } from "../../judge/shown.ts";
import { r } from "../rules.ts";
import type { Model, World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";

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
      : webhookAnswerProblem("GET", 200, reply.body) || (m.webhook.secret && reply.text.includes(m.webhook.secret)) ? "GET /v1/webhooks showed the signing secret"
      : "";
    w.judge.expect(r["webhook-state"], !wrong, wrong, reply);
  }
}

export const getWebhook: CommandSpec = {
  name: "getWebhook",
  doc: "GET /v1/webhooks: the last PUT's url and events, never the secret, or 404",
  statements: ["endpoints.get-webhook", "errors.webhook-404", "webhook-config.secret"],
  needs: [],
  weight: 1,
  draw: () => fc.constant(new GetWebhook()),
};
