/**
 * The seed's truncation rule, judged on one message as a service returned it: a tool_use.input, tool_result.content or
 * sources[].query whose JSON encoding is over 32768 UTF-8 bytes is null and marked; nothing at or under it is. Used by
 * the truncation check and by the proxy on every message list that passes through it.
 */
import { isDeepStrictEqual } from "node:util";
import { contract, rules, seed, type Rule } from "../rules.ts";

export const LIMIT = 32_768;
export const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), "utf8");

export const truncationRules = rules("truncation", {
  "over-cap": seed("Message: Truncation; Limits: payload cap 32 KB of JSON-encoded UTF-8", "a value whose JSON encoding is over 32768 UTF-8 bytes is replaced by null", ["truncation.rule", "limits.payload-cap"]),
  kept: seed("Message: Truncation (only values exceeding 32 KB)", "a value of at most 32768 bytes (exactly 32768 included) is returned whole and unmarked", ["truncation.rule", "limits.payload-cap"]),
  markers: seed("Message: Source entry, Truncation", "a nulled value's object carries truncated: true and truncation_reason: size_limit_32kb, and only then", ["truncation.rule", "source.markers", "limits.payload-cap"]),
  siblings: seed("Message: Truncation (is_error unchanged)", "truncation leaves the other fields of the part or source unchanged", ["truncation.siblings"]),
  "rows-kept": contract("truncation", "a truncated source keeps its rows"),
});

const r = truncationRules;

export type Verdict = [rule: Rule, ok: boolean, message: string];

/** Judges one value holder (a part or a source) as the server returned it; `original` when the suite planted it. */
export function verdicts(holder: any, field: string, what: string, original?: unknown): Verdict[] {
  const marked = holder.truncated !== undefined || holder.truncation_reason !== undefined;
  const markers = holder.truncated === true && holder.truncation_reason === "size_limit_32kb";
  const value = holder[field];
  if (original !== undefined) {
    if (bytes(original) > LIMIT) {
      return [
        [r["over-cap"], value === null, `${what}: over the limit (${bytes(original)} bytes) but ${value === undefined ? "absent" : `returned (${bytes(value)} bytes)`}`],
        [r.markers, markers, `${what}: nulled with markers ${JSON.stringify({ truncated: holder.truncated, truncation_reason: holder.truncation_reason })}`],
      ];
    }
    return [[r.kept, !marked && isDeepStrictEqual(value, original), `${what}: ${bytes(original)} bytes (not over 32768) but ${marked ? "marked truncated" : value === null ? "nulled" : "changed"}`]];
  }
  if (marked) {
    return [
      [r.markers, markers, `${what} has truncation markers ${JSON.stringify({ truncated: holder.truncated, truncation_reason: holder.truncation_reason })}`],
      [r.markers, value === null, `${what} is marked truncated but its ${field} is not null`],
    ];
  }
  // Part types: tool_use.input is an object; only truncation makes it null, and then it is marked.
  if (value === null && holder.type === "tool_use") return [[r.markers, false, `${what} is null without truncation markers: a tool_use's input is an object, null only when truncated`]];
  if (value === null || value === undefined) return [];
  const size = bytes(value);
  // Whole and unmarked within 256 bytes of the cap (32768 itself included): the data shows where the boundary is kept.
  if (size <= LIMIT && size > LIMIT - 256) return [[r.kept, true, ""]];
  return [[r["over-cap"], size <= LIMIT, `${what} is ${size} bytes of JSON (over 32768) and not truncated`]];
}

/** The values of a message the cap applies to: each part's tool_use.input or tool_result.content, each source's query. */
export function capped(m: any): Array<{ holder: any; field: string; where: string }> {
  const out: Array<{ holder: any; field: string; where: string }> = [];
  (Array.isArray(m?.parts) ? m.parts : []).forEach((p: any, i: number) => {
    const field = p?.type === "tool_use" ? "input" : p?.type === "tool_result" ? "content" : null;
    if (field) out.push({ holder: p, field, where: `parts[${i}] ${p.type}.${field}` });
  });
  (Array.isArray(m?.sources) ? m.sources : []).forEach((s: any, i: number) => {
    if (s && typeof s === "object") out.push({ holder: s, field: "query", where: `sources[${i}].query` });
  });
  return out;
}

/** Every verdict on one message's capped values, as a service returned them. */
export function messageVerdicts(m: any, where: string): Verdict[] {
  return capped(m).flatMap(({ holder, field, where: at }) => verdicts(holder, field, `${where} ${at}`));
}
