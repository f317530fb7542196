/**
 * createApiClient: openapi-fetch over the contract's generated types, with the key, retries and the API's
 * base URL. `client.GET("/v1/interviews", {params: {query: {limit: 50}}})` is typed end to end.
 */
import createClient, { type Client } from "openapi-fetch";
import type { paths } from "../../generated/api.d.ts";
import { ApiConnectionError, ApiTimeoutError } from "./errors.ts";
import { retryingFetch, type RetryOptions } from "./retry.ts";

export type ApiClient = Client<paths>;

export interface ApiClientOptions {
  /** Up to and including `/api`, e.g. `http://127.0.0.1:4010/api` (Prism: `http://127.0.0.1:4011`). */
  baseUrl: string;
  /** Project API key (`svc_live_...`). */
  apiKey: string;
  fetch?: typeof fetch;
  retry?: RetryOptions | false;
  /**
   * How long one attempt may take, answer included (default 30,000 ms; 0 turns it off). Past it the call rejects
   * with ApiTimeoutError (after the retries an idempotent call is allowed).
   */
  timeoutMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Each attempt bounded by `timeoutMs`, and every failure to reach the API turned into ApiConnectionError (or
 * ApiTimeoutError) with the original error as `cause`, never a bare `TypeError: fetch failed`. The caller's own
 * abort is rethrown as it is.
 */
function guardedFetch(inner: typeof fetch, timeoutMs: number): typeof fetch {
  return async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    const timeout = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
    const signal = timeout ? AbortSignal.any([request.signal, timeout]) : request.signal;
    try {
      const res = await inner(new Request(request, { signal }));
      return res;
    } catch (err) {
      if (request.signal.aborted) throw err;
      const where = `${request.method} ${request.url}`;
      if (timeout?.aborted) throw new ApiTimeoutError(`No answer to ${where} within ${timeoutMs} ms`, { cause: err });
      // undici's "fetch failed" says little: the cause says why (a system code, or e.g. "bad port").
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new ApiConnectionError(`Could not reach the API for ${where}: ${cause?.code ?? cause?.message ?? (err as Error).message}`, { cause: err });
    }
  };
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const inner = guardedFetch(options.fetch ?? globalThis.fetch, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: options.retry === false ? inner : retryingFetch(inner, options.retry ?? {}),
  });
}
