/**
 * The project's single webhook. PUT creates (201, with the secret: the only time it is shown) or updates
 * (200, secret kept). URLs must be HTTPS; plain http is accepted only for loopback hosts so client teams
 * can point the sandbox at a receiver on their machine.
 */
import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { ApiError, notFound } from "../http/errors.ts";
import type { HandlerGroup } from "../http/types.ts";
import type { HandlerDeps } from "./deps.ts";

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  return host === "::1";
}

function urlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute URL";
  }
  if (url.username || url.password) return "must not contain credentials";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && isLoopback(url.hostname)) return null;
  return "must be an https:// URL (http:// is accepted only for loopback hosts)";
}

export function webhooksHandlers({ webhooks }: HandlerDeps): HandlerGroup<"putWebhook" | "getWebhook" | "deleteWebhook"> {
  return {
    putWebhook({ project, body }) {
      const problem = urlProblem(body.url);
      if (problem) throw new ApiError(400, "invalid_request_error", "Invalid parameters", [{ location: "body", field: "url", message: problem }]);
      const events = [...new Set(body.events)];
      const existing = project.webhook;
      if (existing) {
        // An identical PUT changes nothing, so pending retries to the same receiver go on.
        if (existing.url !== body.url || existing.events.join() !== events.join()) {
          project.setWebhook(body.url, events, existing.signing_secret);
          webhooks.webhookChanged(project);
        }
        return { status: 200, body: { url: body.url, events } };
      }
      const secret = `whsec_${randomBytes(24).toString("hex")}`;
      project.setWebhook(body.url, events, secret);
      return { status: 201, body: { url: body.url, events, signing_secret: secret } };
    },

    getWebhook({ project }) {
      if (!project.webhook) throw notFound("No webhook configured");
      return { status: 200, body: { url: project.webhook.url, events: project.webhook.events } };
    },

    deleteWebhook({ project }) {
      if (project.webhook) {
        project.deleteWebhook();
        webhooks.webhookChanged(project);
      }
      return { status: 204, body: undefined };
    },
  };
}
