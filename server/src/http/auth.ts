/**
 * Credentials. Keys are compared in constant time against every known key (no early exit on the first
 * match and no map lookup keyed by the secret), so response timing does not reveal key prefixes.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Request } from "express";
import { unauthorized } from "./errors.ts";

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

export class KeyRing<T> {
  private readonly entries: Array<{ hash: Buffer; value: T }> = [];

  add(key: string, value: T): void {
    this.entries.push({ hash: digest(key), value });
  }

  /** The value whose key equals `presented`, compared in constant time over equal-length digests. */
  find(presented: string): T | undefined {
    const h = digest(presented);
    let found: T | undefined;
    for (const e of this.entries) if (timingSafeEqual(h, e.hash)) found = e.value;
    return found;
  }
}

/** The scheme is case-insensitive (RFC 9110 §11.1): `bearer` and `BEARER` are Bearer. */
const BEARER = /^Bearer ([^\s]+)$/i;

/** The project for `Authorization: Bearer svc_live_...`, or a 401 that does not say which part was wrong beyond the header's shape. */
export function projectFromBearer<T>(req: Request, keys: KeyRing<T>): T {
  const header = req.headers.authorization;
  if (header === undefined || header === "") throw unauthorized("Missing API key: send `Authorization: Bearer <API_KEY>`");
  const m = BEARER.exec(header);
  if (!m) throw unauthorized("Malformed Authorization header: expected `Bearer <API_KEY>`");
  const key = m[1];
  const project = key.startsWith("svc_live_") ? keys.find(key) : undefined;
  if (!project) throw unauthorized("Invalid API key");
  return project;
}

/** The project for `X-Public-Key: pk_live_...`. */
export function projectFromPublicKey<T>(req: Request, keys: KeyRing<T>): T {
  const key = req.headers["x-public-key"];
  if (typeof key !== "string" || key === "") throw unauthorized("Missing public key: send `X-Public-Key: <PUBLIC_SDK_KEY>`");
  const project = key.startsWith("pk_live_") ? keys.find(key) : undefined;
  if (!project) throw unauthorized("Invalid public key");
  return project;
}
