/**
 * The project's single webhook. PUT creates (201, with the secret: the only time it is shown) or updates
 * (200, secret kept). URLs must be HTTPS and must not point to private, link-local or metadata addresses;
 * loopback hosts (http:// too) are the local-development exception, so client teams can point the sandbox at a
 * receiver on their machine (webhooks/address-policy.ts; WEBHOOK_ALLOW_LOOPBACK=0 turns it off).
 */
import { randomBytes } from "node:crypto";
import { ApiError, notFound } from "../http/errors.ts";
import type { HandlerGroup } from "../http/types.ts";
import { urlProblem } from "../webhooks/address-policy.ts";
import type { HandlerDeps } from "./deps.ts";

export function webhooksHandlers({ webhooks, webhookSettings, addressPolicy }: HandlerDeps): HandlerGroup<"putWebhook" | "getWebhook" | "deleteWebhook"> {
  return {
    async putWebhook({ project, body }) {
      const problem = urlProblem(body.url, addressPolicy);
      if (problem) throw new ApiError(400, "invalid_request_error", "Invalid parameters", [{ location: "body", field: "url", message: problem }]);
      const events = [...new Set(body.events)];
      // Locked until this change ends (PostgreSQL): two PUTs of one project never both create it. In one process, a
      // PUT that read none may find it created by another PUT since: `create` says so, and this one updates it.
      for (let tries = 0; tries < 5; tries++) {
        const existing = await webhookSettings.get(project, true);
        if (existing) {
          // An identical PUT changes nothing, so pending retries to the same receiver go on.
          if (existing.url !== body.url || existing.events.join() !== events.join()) {
            const current = await webhookSettings.set(project, body.url, events, existing.signing_secret);
            await webhooks.webhookChanged(project, current);
          }
          return { status: 200, body: { url: body.url, events } };
        }
        const secret = `whsec_${randomBytes(24).toString("hex")}`;
        if (await webhookSettings.create(project, body.url, events, secret)) return { status: 201, body: { url: body.url, events, signing_secret: secret } };
      }
      // Created and deleted again between each read and write, five times over: the client's own PUTs and DELETEs racing.
      throw new ApiError(503, "api_error", "Service unavailable: the webhook was changed by other requests meanwhile; retry after a second", undefined, { "Retry-After": "1" });
    },

    async getWebhook({ project }) {
      const webhook = await webhookSettings.get(project);
      if (!webhook) throw notFound("No webhook configured");
      return { status: 200, body: { url: webhook.url, events: webhook.events } };
    },

    async deleteWebhook({ project }) {
      if (await webhookSettings.get(project, true)) {
        await webhookSettings.delete(project);
        await webhooks.webhookChanged(project, null);
      }
      return { status: 204, body: undefined };
    },
  };
}
