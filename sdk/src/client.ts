/**
 * createApiClient: openapi-fetch over the contract's generated types, with the key, retries and the API's
 * base URL. `client.GET("/v1/interviews", {params: {query: {limit: 50}}})` is typed end to end.
 */
import createClient, { type Client } from "openapi-fetch";
import type { paths } from "../../generated/api.d.ts";
import { retryingFetch, type RetryOptions } from "./retry.ts";

export type ApiClient = Client<paths>;

export interface ApiClientOptions {
  /** Up to and including `/api`, e.g. `http://127.0.0.1:4010/api` (Prism: `http://127.0.0.1:4011`). */
  baseUrl: string;
  /** Project API key (`svc_live_...`). */
  apiKey: string;
  fetch?: typeof fetch;
  retry?: RetryOptions | false;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const inner = options.fetch ?? globalThis.fetch;
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: options.retry === false ? inner : retryingFetch(inner, options.retry ?? {}),
  });
}
