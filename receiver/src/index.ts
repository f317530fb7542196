/** Receiver library for the `interview.completed` webhook: verify, parse, de-duplicate. */
export { signWebhookBody, verifyWebhookSignature, REASON_TEXT } from "./verify.ts";
export { webhookMiddleware, type VerifiedWebhook, type WebhookMiddlewareOptions } from "./middleware.ts";
export { createDeduplicator, dedupeKey, memoryStore, type Deduplicator, type SeenStore } from "./dedupe.ts";
export type { InterviewCompletedData, InterviewCompletedEvent, VerifyFailureReason, VerifyResult } from "./types.ts";
