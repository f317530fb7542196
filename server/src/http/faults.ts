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
import type { Project } from "../model/project.ts";
import { OpenSlots, tooMany, type TenantLimits } from "../model/tenant-limits.ts";
import { ApiError, badRequest } from "./errors.ts";
import type { SharedCounter } from "../stores/postgres/shared-slots.ts";

const EXEMPT = new Set(["simGetFaults", "simPutFaults", "simDeleteFaults"]);

/** Thrown to stop a request that has been (or will be) dealt with at the connection level. */
export class Unanswered extends Error {}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Requests held open by a delay, per tenant and per source address: each holds a connection (a descriptor) for up
 * to a minute, so without a cap a few addresses asking `Prefer: delay=60000` could take every descriptor.
 */
export class HeldRequests {
  private readonly slots: OpenSlots;
  constructor(limits: Pick<TenantLimits, "held" | "heldPerAddress">) {
    this.slots = new OpenSlots(limits.held, limits.heldPerAddress, {
      tenant: () => tooMany(`This organisation already has ${limits.held} requests held by a delay (--max-held); wait for one to finish`),
      address: () => tooMany(`This address already has ${limits.heldPerAddress} requests held by a delay (--max-held-per-address); wait for one to finish`),
    });
  }

  /** Waits `ms` as one of the tenant's and the address's held requests, or refuses with a 429 when either is full. */
  async hold(tenant: string, address: string, ms: number): Promise<void> {
    await this.slots.admit(tenant, address);
    try {
      await sleep(ms);
    } finally {
      this.slots.release(tenant, address);
    }
  }

  /** Counts the per-tenant cap over every process sharing `counter` (several processes on one PostgreSQL). */
  share(counter: SharedCounter): void {
    this.slots.share(counter, "held");
  }
}

export async function applyFaults(req: Request, route: RouteDef, project: Project, registry: FaultRegistry, timeoutHoldMs: number, held: HeldRequests): Promise<void> {
  if (EXEMPT.has(route.operationId)) return;
  const asked = preferredFaults(req.headers.prefer);
  if ("error" in asked) throw badRequest(asked.error);
  const set = await registry.plan(project.id, route.operationId, route.path.startsWith("/v1/"));
  const plan: FaultPlan = { delayMs: asked.delayMs + set.delayMs, kind: asked.kind ?? set.kind };
  if (plan.delayMs > 0) await held.hold(project.tenant, req.socket.remoteAddress ?? "unknown", plan.delayMs);
  switch (plan.kind) {
    case null:
      return;
    case "500":
      throw new ApiError(500, "api_error", "Simulated fault: internal server error (the sandbox was asked for it)").loggedAs("info", "injected fault");
    case "503":
      throw new ApiError(503, "api_error", "Simulated fault: service unavailable (the sandbox was asked for it)", undefined, { "Retry-After": "1" }).loggedAs("info", "injected fault");
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
