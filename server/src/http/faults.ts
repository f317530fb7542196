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
import type { SharedCounter } from "../stores/limits.ts";

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

/**
 * The request's faults, carried out: nothing (undefined, at once) for a request that asked none of a project that has
 * none set here; a promise while a delay holds it or the settings are read where they are shared; a throw for a fault.
 */
export function applyFaults(req: Request, route: RouteDef, project: Project, registry: FaultRegistry, timeoutHoldMs: number, held: HeldRequests): void | Promise<void> {
  if (EXEMPT.has(route.operationId)) return;
  const asked = preferredFaults(req.headers.prefer);
  if ("error" in asked) throw badRequest(asked.error);
  const set = registry.plan(project.id, route.operationId, route.path.startsWith("/v1/"));
  if (set instanceof Promise) return set.then((s) => carryOut(req, project, { delayMs: asked.delayMs + s.delayMs, kind: asked.kind ?? s.kind }, timeoutHoldMs, held));
  return carryOut(req, project, { delayMs: asked.delayMs + set.delayMs, kind: asked.kind ?? set.kind }, timeoutHoldMs, held);
}

function carryOut(req: Request, project: Project, plan: FaultPlan, timeoutHoldMs: number, held: HeldRequests): void | Promise<void> {
  if (plan.delayMs > 0) return held.hold(project.tenant, req.socket.remoteAddress ?? "unknown", plan.delayMs).then(() => fail(req, plan.kind, timeoutHoldMs));
  fail(req, plan.kind, timeoutHoldMs);
}

function fail(req: Request, kind: FaultPlan["kind"], timeoutHoldMs: number): void {
  switch (kind) {
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
