/**
 * The simulation surface's delivery tools: the event stream (`api-sandbox listen`), a delivery's exact request,
 * and resends (`api-sandbox deliveries resend`).
 */
import type { HandlerGroup } from "../http/types.ts";
import type { HandlerDeps } from "./deps.ts";

type Ops = "simStreamEvents" | "simGetDeliveryRequest" | "simResendDelivery";

export function simEventsHandlers(deps: HandlerDeps): HandlerGroup<Ops> {
  const { webhooks, streams } = deps;
  return {
    async simStreamEvents({ project, req }) {
      const last = req.headers["last-event-id"];
      // The handler answers itself (an open stream); the router sends nothing more once headers are out.
      await streams.subscribe(project, req.res!, typeof last === "string" ? last.trim() : undefined, req.socket.remoteAddress ?? "unknown");
      return { status: 200, body: undefined as never };
    },
    async simGetDeliveryRequest({ project, path }) {
      return { status: 200, body: await webhooks.request(project, path.id) };
    },
    async simResendDelivery({ project, path }) {
      return { status: 202, body: await webhooks.resend(project, path.id) };
    },
  };
}
