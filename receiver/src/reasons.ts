/** The message each signature failure is answered with, shared by the Node and the Web verifiers. */
import type { VerifyFailureReason } from "./types.ts";

export const REASON_TEXT: Record<VerifyFailureReason, string> = {
  missing_signature: "Missing X-Webhook-Signature header",
  malformed_signature: "Malformed X-Webhook-Signature: expected sha256= followed by 64 lowercase hex characters",
  no_secrets: "No signing secret configured",
  empty_secret: "A configured signing secret is empty",
  signature_mismatch: "Signature does not match the raw request body",
};
