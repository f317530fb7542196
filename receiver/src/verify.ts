/**
 * Verifying `X-Webhook-Signature: sha256=<lowercase hex HMAC-SHA256 of the raw body>`.
 * Always over the exact bytes received: a body parsed and re-serialised does not verify, by design.
 * Comparison is constant-time over equal-length digests, so it never throws on a length mismatch and
 * leaks nothing through timing; several secrets may be given during a rotation.
 * This file uses node:crypto (synchronous); web-verify.ts does the same with Web Crypto for runtimes without Node's APIs.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { VerifyFailureReason, VerifyResult } from "./types.ts";
export { REASON_TEXT } from "./reasons.ts";

const SIGNATURE = /^sha256=([0-9a-f]{64})$/;

const bytesOf = (body: Uint8Array | string) => (typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body.buffer, body.byteOffset, body.byteLength));

/** `sha256=<hex>` of `rawBody` keyed with `secret`: what the service sends, for client teams' own tests. */
export function signWebhookBody(rawBody: Uint8Array | string, secret: string): string {
  if (!secret) throw new Error("signWebhookBody: the secret must not be empty");
  return `sha256=${createHmac("sha256", secret).update(bytesOf(rawBody)).digest("hex")}`;
}

export function verifyWebhookSignature(
  rawBody: Uint8Array | string,
  signatureHeader: string | string[] | undefined | null,
  secrets: string | readonly string[],
): VerifyResult {
  const list = typeof secrets === "string" ? [secrets] : [...secrets];
  if (list.length === 0) return fail("no_secrets");
  if (list.some((s) => typeof s !== "string" || s.length === 0)) return fail("empty_secret");
  if (signatureHeader === undefined || signatureHeader === null || signatureHeader === "") return fail("missing_signature");
  // Several X-Webhook-Signature headers are ambiguous: refuse rather than guess which one counts.
  if (Array.isArray(signatureHeader)) return fail(signatureHeader.length === 0 ? "missing_signature" : "malformed_signature");
  const m = SIGNATURE.exec(signatureHeader);
  if (!m) return fail("malformed_signature");
  const given = Buffer.from(m[1], "hex");
  const body = bytesOf(rawBody);
  let matched = -1;
  // Every secret is tried, so timing does not reveal which one matched.
  list.forEach((secret, i) => {
    const expected = createHmac("sha256", secret).update(body).digest();
    if (timingSafeEqual(expected, given) && matched < 0) matched = i;
  });
  return matched >= 0 ? { ok: true, secretIndex: matched } : fail("signature_mismatch");
}

const fail = (reason: VerifyFailureReason): VerifyResult => ({ ok: false, reason });
