/**
 * Reading a JSON request body, with one rule for each way a body can be wrong (every one answered in the envelope):
 * - Content-Type must be `application/json`, with no charset or `charset=utf-8` (JSON is UTF-8, RFC 8259 §8.1):
 *   anything else is a 415;
 * - Content-Encoding may be identity, gzip, deflate or br; another coding is a 415, and a corrupt or truncated
 *   compressed body is a 400;
 * - the body is at most `limit` bytes after decoding (413), is valid JSON (400), and nests at most MAX_JSON_DEPTH
 *   levels of arrays and objects (400), so validation never recurses past the stack.
 */
import express, { type Request, type Response } from "express";
import { ApiError, invalidParameters } from "./errors.ts";

export const MAX_JSON_DEPTH = 64;

/** The deepest nesting of arrays and objects in a parsed value, counted without recursion. */
export function jsonDepth(value: unknown, stopAt = Infinity): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > deepest) deepest = depth;
    if (deepest > stopAt) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return deepest;
}

function charsetOf(contentType: string): string | null {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType);
  return m ? m[1].toLowerCase() : null;
}

export function readJson(req: Request, res: Response, limit: number): Promise<unknown> {
  if (!req.is("application/json")) {
    return Promise.reject(new ApiError(415, "unsupported_media_type_error", "Content-Type must be application/json"));
  }
  const charset = charsetOf(req.headers["content-type"] ?? "");
  if (charset !== null && charset !== "utf-8" && charset !== "utf8") {
    return Promise.reject(new ApiError(415, "unsupported_media_type_error", `Unsupported charset "${charset}": JSON bodies must be UTF-8`));
  }
  const parse = express.json({ limit, strict: true });
  return new Promise((resolve, reject) =>
    parse(req, res, (err?: unknown) => {
      if (err) return reject(err);
      if (jsonDepth(req.body, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
        return reject(invalidParameters([{ location: "body", field: "(body)", message: `nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects` }]));
      }
      resolve(req.body);
    }),
  );
}

/** A decompression failure from zlib (gzip, deflate or brotli), surfaced by the body parser as a bare error. */
export function isCorruptEncoding(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  // zlib: Z_DATA_ERROR, Z_BUF_ERROR; brotli: ERR__ERROR_FORMAT_... and the like.
  return typeof code === "string" && (/^Z_/.test(code) || /^ERR__ERROR/.test(code) || /BROTLI|ZLIB/.test(code));
}
