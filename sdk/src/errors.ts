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

/**
 * The API could not be reached: the connection was refused or reset, the name did not resolve, TLS failed. The
 * original error (undici's `TypeError: fetch failed`, with its own `cause` carrying the system code) is `cause`.
 */
export class ApiConnectionError extends Error {
  /** The system error code when there is one (`ECONNREFUSED`, `ECONNRESET`, `ENOTFOUND`, ...). */
  readonly code: string | undefined;

  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = "ApiConnectionError";
    const inner = (options.cause as { cause?: { code?: string } } | undefined)?.cause;
    this.code = inner?.code ?? (options.cause as { code?: string } | undefined)?.code;
  }
}

/** No answer within the client's `timeoutMs`. A kind of connection error: `instanceof ApiConnectionError` holds too. */
export class ApiTimeoutError extends ApiConnectionError {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = "ApiTimeoutError";
  }
}
