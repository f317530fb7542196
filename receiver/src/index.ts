/** Receiver library for the `interview.completed` webhook: verify, parse, de-duplicate. No runtime dependencies. */
export { signWebhookBody, verifyWebhookSignature, REASON_TEXT } from "./verify.ts";
export { verifyWebhookBytes, verifyWebhookRequest, rejectionResponse, type VerifyRequestOptions, type WebhookVerification } from "./web-verify.ts";
export { webhookMiddleware, verifiedWebhook, type VerifiedWebhook, type WebhookMiddlewareOptions, type WebhookRequestLike, type WebhookResponseLike } from "./middleware.ts";
export { checkSignedEvent, type EventCheck, type EventCheckOptions, type RejectionReason } from "./event.ts";
export { createDeduplicator, dedupeKey, memoryStore, type Deduplicator, type SeenStore } from "./dedupe.ts";
export type { InterviewCompletedData, InterviewCompletedEvent, VerifyFailureReason, VerifyResult } from "./types.ts";
