/**
 * The 32 KB payload cap (DESIGN.md): a value is truncated when its JSON encoding, as UTF-8, is longer than
 * 32768 bytes; exactly 32768 is kept. Bytes, not characters: "é" counts 2, "日" 3, "😀" 4.
 */
export const PAYLOAD_CAP_BYTES = 32_768;
export const TRUNCATION_REASON = "size_limit_32kb" as const;

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "null", "utf8");
}

export function overCap(value: unknown): boolean {
  // A string's UTF-8 length is at most 3 bytes per UTF-16 unit (+2 quotes, escapes aside), so short values skip encoding.
  if (typeof value === "string" && value.length * 3 + 2 <= PAYLOAD_CAP_BYTES && !/["\\\u0000-\u001f]/.test(value)) return false;
  return jsonBytes(value) > PAYLOAD_CAP_BYTES;
}
