/**
 * Message views: raw parts as the service records them become the six public part types.
 * - Tool transports (server, MCP, web search, code execution) normalise to `tool_use` / `tool_result`.
 * - Transient tool states (streaming input, approval requests) are reported as `input_available`.
 * - Internal runtime parts (compaction, container uploads, hidden branches) and metadata are dropped.
 * - Oversized tool inputs, tool results and source queries are nulled and marked (truncation.ts).
 * A view is computed once per message (memo.ts): stored messages never change.
 */
import type { components } from "../../../generated/schema.d.ts";
import type { RawPart, RawSource, StoredMessage } from "../../../fixtures/types.ts";
import { memo } from "./memo.ts";
import { overCap, TRUNCATION_REASON } from "./truncation.ts";

type S = components["schemas"];
type Part = S["MessagePart"];

const PUBLIC_STATES = new Set(["input_available", "output_available", "output_error", "output_denied"]);

type RawToolUse = Extract<RawPart, { type: "tool_use" | "server_tool_use" | "mcp_tool_use" }>;
type RawToolResult = Extract<RawPart, { type: "tool_result" | "web_search_tool_result" | "code_execution_tool_result" | "mcp_tool_result" }>;

function toolUse(r: RawToolUse): Part {
  const state = (PUBLIC_STATES.has(r.state) ? r.state : "input_available") as S["ToolUseState"];
  const base = { type: "tool_use" as const, id: r.id, name: r.name, summary: r.summary, state };
  return overCap(r.input) ? { ...base, input: null, truncated: true, truncation_reason: TRUNCATION_REASON } : { ...base, input: r.input };
}

function toolResult(r: RawToolResult): Part {
  const base = { type: "tool_result" as const, tool_use_id: r.tool_use_id, is_error: r.is_error };
  return overCap(r.content) ? { ...base, content: null, truncated: true, truncation_reason: TRUNCATION_REASON } : { ...base, content: r.content };
}

export function publicPart(raw: RawPart): Part | null {
  switch (raw.type) {
    case "text":
      return { type: "text", text: raw.text };
    case "thinking":
      return { type: "thinking", thinking: raw.thinking };
    case "redacted_thinking":
      return { type: "redacted_thinking" };
    case "file":
      return { type: "file", url: raw.url, media_type: raw.media_type, filename: raw.filename ?? null };
    case "tool_use":
    case "server_tool_use":
    case "mcp_tool_use":
      return toolUse(raw);
    case "tool_result":
    case "web_search_tool_result":
    case "code_execution_tool_result":
    case "mcp_tool_result":
      return toolResult(raw);
    default:
      return null; // compaction, container_upload, hidden_branch and anything unknown are internal
  }
}

export function publicSource(s: RawSource): S["MessageSource"] {
  const base = { id: s.id, description: s.description };
  return s.query !== null && overCap(s.query)
    ? { ...base, rows: s.rows, query: null, truncated: true, truncation_reason: TRUNCATION_REASON }
    : { ...base, rows: s.rows, query: s.query };
}

export const messageView = (m: StoredMessage): S["Message"] => memo(m, "view", buildView);

function buildView(m: StoredMessage): S["Message"] {
  return {
      id: m.id,
      object: "message",
      chat_id: m.chat_id,
      role: m.role,
      parts: m.parts.map(publicPart).filter((p): p is Part => p !== null),
      // An empty list of citations is "none": null, as the seed says.
      sources: m.sources?.length ? m.sources.map(publicSource) : null,
      feedback: m.feedback,
      usage: m.role === "assistant" ? m.usage : null,
    created_at: m.created_at,
    completed_at: m.completed_at,
  };
}
