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

export function webhooksHandlers({ webhooks, addressPolicy, journal }: HandlerDeps): HandlerGroup<"putWebhook" | "getWebhook" | "deleteWebhook"> {
  return {
    async putWebhook({ project, body }) {
      const problem = urlProblem(body.url, addressPolicy);
      if (problem) throw new ApiError(400, "invalid_request_error", "Invalid parameters", [{ location: "body", field: "url", message: problem }]);
      const events = [...new Set(body.events)];
      const existing = project.webhook;
      if (existing) {
        // An identical PUT changes nothing, so pending retries to the same receiver go on.
        if (existing.url !== body.url || existing.events.join() !== events.join()) {
          journal.append({ kind: "webhook.set", project_id: project.id, url: body.url, events, secret: existing.signing_secret });
          project.setWebhook(body.url, events, existing.signing_secret);
          await webhooks.webhookChanged(project);
        }
        return { status: 200, body: { url: body.url, events } };
      }
      const secret = `whsec_${randomBytes(24).toString("hex")}`;
      journal.append({ kind: "webhook.set", project_id: project.id, url: body.url, events, secret });
      project.setWebhook(body.url, events, secret);
      return { status: 201, body: { url: body.url, events, signing_secret: secret } };
    },

    getWebhook({ project }) {
      if (!project.webhook) throw notFound("No webhook configured");
      return { status: 200, body: { url: project.webhook.url, events: project.webhook.events } };
    },

    async deleteWebhook({ project }) {
      if (project.webhook) {
        journal.append({ kind: "webhook.deleted", project_id: project.id });
        project.deleteWebhook();
        await webhooks.webhookChanged(project);
      }
      return { status: 204, body: undefined };
    },
  };
}
