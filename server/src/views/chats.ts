/** Chat views: `message_count` (visible messages only) is detail-only; message bodies are never part of a chat. */
import type { components } from "../../../generated/schema.d.ts";
import type { StoredChat } from "../../../fixtures/types.ts";
import { memo } from "./memo.ts";

type S = components["schemas"];

export const chatSummary = (c: StoredChat): S["ChatSummary"] => memo(c, "summary", buildSummary);

function buildSummary(c: StoredChat): S["ChatSummary"] {
  return {
    id: c.id,
    object: "chat",
    title: c.title,
    source: c.source,
    is_streaming: c.is_streaming,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

export function chatDetail(c: StoredChat, visibleMessages: number): S["Chat"] {
  return { ...chatSummary(c), message_count: visibleMessages };
}
