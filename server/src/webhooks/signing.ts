/**
 * The `X-Webhook-Signature` value of the seed: `sha256=` + lowercase hex HMAC-SHA256 of the exact raw body,
 * keyed with the webhook's signing secret. It is computed over the bytes that go on the wire (a Buffer),
 * never over a re-serialised object, so receivers that hash the raw body always agree with it.
 */
import { createHmac } from "node:crypto";

export const SIGNATURE_PREFIX = "sha256=";

export function signWebhookBody(secret: string, body: Uint8Array): string {
  return SIGNATURE_PREFIX + createHmac("sha256", secret).update(body).digest("hex");
}
