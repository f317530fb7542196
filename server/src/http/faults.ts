/**
 * Applying faults to one request, after authentication (a caller without a key still gets its 401) and before the
 * operation runs: a delay, then a 500 or a 503 with `Retry-After` in the envelope, a connection reset, or a request
 * left unanswered until `timeoutHoldMs` (then the connection is closed). Per request (`Prefer: fault=...`,
 * `Prefer: delay=...`) or per project (`PUT /_sim/faults`); never otherwise. The fault settings operations themselves
 * are exempt, so a sandbox can always be set right.
 */
import type { Request } from "express";
import type { RouteDef } from "../../../generated/routes.ts";
import { preferredFaults, type FaultPlan, type FaultRegistry } from "../faults/settings.ts";
import { ApiError, badRequest } from "./errors.ts";

const EXEMPT = new Set(["simGetFaults", "simPutFaults", "simDeleteFaults"]);

/** Thrown to stop a request that has been (or will be) dealt with at the connection level. */
export class Unanswered extends Error {}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function applyFaults(req: Request, route: RouteDef, projectId: string, registry: FaultRegistry, timeoutHoldMs: number): Promise<void> {
  if (EXEMPT.has(route.operationId)) return;
  const asked = preferredFaults(req.headers.prefer);
  if ("error" in asked) throw badRequest(asked.error);
  const set = registry.plan(projectId, route.operationId, route.path.startsWith("/v1/"));
  const plan: FaultPlan = { delayMs: asked.delayMs + set.delayMs, kind: asked.kind ?? set.kind };
  if (plan.delayMs > 0) await sleep(plan.delayMs);
  switch (plan.kind) {
    case null:
      return;
    case "500":
      throw new ApiError(500, "api_error", "Simulated fault: internal server error (the sandbox was asked for it)");
    case "503":
      throw new ApiError(503, "api_error", "Simulated fault: service unavailable (the sandbox was asked for it)", undefined, { "Retry-After": "1" });
    case "reset":
      req.socket.destroy();
      throw new Unanswered();
    case "timeout": {
      const timer = setTimeout(() => req.socket.destroy(), timeoutHoldMs);
      req.socket.once("close", () => clearTimeout(timer));
      throw new Unanswered();
    }
  }
}
