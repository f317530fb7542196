/** `deleteWebhook`: DELETE /v1/webhooks: 204, and from then on nothing is delivered. */
import fc from "fast-check";
import { r } from "../rules.ts";
import type { Model, World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";

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

export const deleteWebhook: CommandSpec = {
  name: "deleteWebhook",
  doc: "DELETE /v1/webhooks: 204, and from then on nothing is delivered",
  statements: ["endpoints.delete-webhook", "errors.204", "auth.webhook-delete", "errors.webhook-404"],
  needs: [],
  weight: 2,
  draw: () => fc.constant(new DeleteWebhook()),
};
