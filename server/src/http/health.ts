/**
 * `/healthz` and `/readyz`, outside `/api` (they are the deployment's, not the contract's): an orchestrator restarts
 * a process whose `/healthz` fails, and sends traffic only to one whose `/readyz` answers 200 (its store answers and
 * is migrated). Neither needs a key; neither says more than the store's kind and, when not ready, why.
 */
import type { RequestHandler } from "express";
import type { Backend } from "../stores/backend.ts";
import { ApiError } from "./errors.ts";

export function health(backend: Backend): RequestHandler {
  return (req, res, next) => {
    if (req.path !== "/healthz" && req.path !== "/readyz") return next();
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.set("Allow", "GET, HEAD");
      return next(new ApiError(405, "method_not_allowed_error", `Method ${req.method} is not allowed on ${req.path}; allowed: GET, HEAD`));
    }
    res.set("Cache-Control", "no-store");
    if (req.path === "/healthz") return void res.status(200).json({ status: "ok" });
    backend.ready().then(
      (problem) => {
        if (problem === null) return void res.status(200).json({ status: "ready", store: backend.kind });
        next(new ApiError(503, "api_error", `Not ready: ${problem.reason}`, undefined, { "Retry-After": "1" }).loggedAs("info", "not ready", problem.detail));
      },
      (err) => next(err),
    );
  };
}
