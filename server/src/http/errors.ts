/**
 * The one error envelope: `{"error": {"type", "message", "details"?}}`. Every error the server sends,
 * from a handler, the validator, the body parser or the fallback routes, is an ApiError rendered here.
 */
import type { components } from "../../../generated/schema.d.ts";

export type ErrorType = components["schemas"]["ErrorType"];
export type ValidationIssue = components["schemas"]["ValidationIssue"];
export type ErrorEnvelope = components["schemas"]["ErrorEnvelope"];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    message: string,
    readonly details?: ValidationIssue[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  /**
   * How the error handler logs this answer when it is not a failure of the server: a fault the sandbox was asked to
   * inject, a refusal while it shuts down. Undefined: a 5xx is logged at error level as "server error".
   */
  expected?: { level: "info" | "warn"; message: string; detail?: string };

  /**
   * Marks the answer as the server's intended behaviour, logged at `level` with `message` (see `expected`); `detail`
   * goes to the log only (a driver's message, a database's address: nothing a client may be told).
   */
  loggedAs(level: "info" | "warn", message: string, detail?: string): this {
    this.expected = { level, message, detail };
    return this;
  }

  get envelope(): ErrorEnvelope {
    return { error: { type: this.type, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

export const invalidParameters = (details: ValidationIssue[]) => new ApiError(400, "invalid_request_error", "Invalid parameters", details);
export const badRequest = (message: string) => new ApiError(400, "invalid_request_error", message);
export const unauthorized = (message: string) => new ApiError(401, "authentication_error", message);
export const notFound = (message: string) => new ApiError(404, "not_found_error", message);
export const conflict = (message: string) => new ApiError(409, "conflict_error", message);
export const gone = (message: string) => new ApiError(410, "launch_expired_error", message);
