/**
 * Signed launches: the trigger config hands out, per rule and user, a token the client sends back when the
 * user accepts the prompt. It is an HMAC-signed claim `{rule, user, audience, expiry}`, so the server keeps no
 * state per invite and an invite held past its expiry resolves `expired` (410).
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export interface LaunchClaim {
  /** Launch rule id. */
  r: string;
  /** referenceId the token was issued to (null when signed out). */
  u: string | null;
  /** Audience id when the invite came from an audience match. */
  a: string | null;
  /** Expiry, ms since epoch. */
  e: number;
  /** The study of a rule planted with it (its id is in no fixture); absent for a fixture rule. */
  s?: string;
}

const b64 = (buf: Buffer) => buf.toString("base64url");

export function signLaunchToken(claim: LaunchClaim, secret: Buffer): string {
  const payload = b64(Buffer.from(JSON.stringify(claim)));
  return `lt_${payload}.${b64(createHmac("sha256", secret).update(payload).digest())}`;
}

/** The claim, or null when the token is malformed or its signature does not verify. Expiry is the caller's check. */
export function readLaunchToken(token: string, secret: Buffer): LaunchClaim | null {
  const m = /^lt_([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return null;
  const expected = createHmac("sha256", secret).update(m[1]).digest();
  const given = Buffer.from(m[2], "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const claim = JSON.parse(Buffer.from(m[1], "base64url").toString("utf8")) as LaunchClaim;
    return typeof claim.r === "string" && typeof claim.e === "number" ? claim : null;
  } catch {
    return null;
  }
}
