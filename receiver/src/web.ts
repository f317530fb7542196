/**
 * `@service/webhook-receiver/web`: the runtime-neutral part (Web Crypto, Web Request/Response, no Node built-ins),
 * for Next.js route handlers on the Edge runtime, Hono, Deno, Bun and Workers.
 */
export { verifyWebhookBytes, verifyWebhookRequest, rejectionResponse, type VerifyRequestOptions, type WebhookVerification } from "./web-verify.ts";
export { REASON_TEXT } from "./reasons.ts";
export { checkSignedEvent, type EventCheck, type EventCheckOptions, type RejectionReason } from "./event.ts";
export { createDeduplicator, dedupeKey, memoryStore, type Deduplicator, type SeenStore } from "./dedupe.ts";
export type { InterviewCompletedData, InterviewCompletedEvent, VerifyFailureReason, VerifyResult } from "./types.ts";
