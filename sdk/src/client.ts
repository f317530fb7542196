/**
 * createApiClient: openapi-fetch over the contract's generated types, with the key, retries and the API's
 * base URL. `client.GET("/v1/interviews", {params: {query: {limit: 50}}})` is typed end to end.
 */
import createClient, { type Client } from "openapi-fetch";
import type { paths } from "../../generated/api.d.ts";
import { boundedFetch } from "./bounded-fetch.ts";
import { CallerRequest } from "./caller-signal.ts";
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
   * with ApiTimeoutError; a timeout is final (no retry). It holds in a long-running process under garbage collection
   * (it does not rely on fetch honouring a signal). An event stream is bounded until its headers arrive.
   */
  timeoutMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

export function createApiClient(options: ApiClientOptions): ApiClient {
  const inner = boundedFetch(options.fetch ?? globalThis.fetch, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  return createClient<paths>({
    // Keeps the caller's signal on the Request itself (caller-signal.ts: Node 20 loses it to a collection otherwise).
    Request: CallerRequest,
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: options.retry === false ? inner : retryingFetch(inner, options.retry ?? {}),
  });
}
