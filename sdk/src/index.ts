/** Typed client of the Project Data API. The webhook receiver is its own package, @service/webhook-receiver. */
export { createApiClient, DEFAULT_TIMEOUT_MS, type ApiClient, type ApiClientOptions } from "./client.ts";
export { ApiConnectionError, ApiError, ApiTimeoutError, unwrap, type ErrorEnvelope } from "./errors.ts";
export { paginate, type ItemOf, type ListPath, type PaginateParams } from "./paginate.ts";
export { retryingFetch, type RetryOptions } from "./retry.ts";
export type { components, operations, paths, webhooks } from "../../generated/api.d.ts";
