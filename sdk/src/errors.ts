/** The API's error envelope as a thrown error, so callers can `catch (e) { if (e instanceof ApiError && e.status === 404) ... }`. */
import type { components } from "../../generated/api.d.ts";

export type ErrorEnvelope = components["schemas"]["ErrorEnvelope"];

export class ApiError extends Error {
  readonly status: number;
  readonly type: ErrorEnvelope["error"]["type"] | "unknown";
  readonly details: ErrorEnvelope["error"]["details"];
  /** The parsed body, when the server answered one. */
  readonly body: unknown;

  constructor(status: number, body: unknown) {
    const envelope = (body as ErrorEnvelope | undefined)?.error;
    super(envelope?.message ?? `HTTP ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.type = envelope?.type ?? "unknown";
    this.details = envelope?.details;
    this.body = body;
  }
}

/** `data`, or the `error` as an ApiError: turns openapi-fetch's `{data, error, response}` into a value or a throw. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) throw new ApiError(response.status, error);
  return data as T;
}
