/**
 * JSON for response bodies. List envelopes are assembled from each item's JSON text, cached per item
 * object: with memoised views (views/memo.ts) a page of 100 interviews costs 100 cache lookups and a join
 * instead of a full JSON.stringify. Only memoised views are cached, because only they are guaranteed never
 * to change in place. The output is byte-identical to JSON.stringify(body).
 */
import { isMemoView } from "../views/memo.ts";

const text = new WeakMap<object, string>();

function itemJson(item: unknown): string {
  if (item === null || typeof item !== "object" || !isMemoView(item)) return JSON.stringify(item);
  let json = text.get(item);
  if (json === undefined) text.set(item, (json = JSON.stringify(item)));
  return json;
}

function isListEnvelope(body: unknown): body is { object: "list"; data: unknown[]; has_more: boolean } {
  if (body === null || typeof body !== "object") return false;
  const keys = Object.keys(body);
  return keys.length === 3 && keys[0] === "object" && keys[1] === "data" && keys[2] === "has_more" && (body as { object: unknown }).object === "list";
}

export function toJson(body: unknown): string {
  if (isListEnvelope(body)) {
    return `{"object":"list","data":[${body.data.map(itemJson).join(",")}],"has_more":${body.has_more}}`;
  }
  return itemJson(body);
}
