/**
 * Messages the interview page posts to its host (`window.parent.postMessage`):
 *   {type: "interview.loaded"}
 *   {type: "interview.started", sessionId}
 *   {type: "interview.completed", sessionId}
 *   {type: "interview.abandoned", sessionId?}
 *   {type: "interview.closed", reason?: "user" | "system"}
 * Messages from any origin other than the launch URL's, the fallback's or `allowedOrigins` are ignored.
 */
export type InterviewMessage =
  | { type: "interview.loaded" }
  | { type: "interview.started"; sessionId: string }
  | { type: "interview.completed"; sessionId: string }
  | { type: "interview.abandoned"; sessionId?: string }
  | { type: "interview.closed"; reason?: "user" | "system" };

const TYPES = new Set(["interview.loaded", "interview.started", "interview.completed", "interview.abandoned", "interview.closed"]);

export function parseMessage(data: unknown): InterviewMessage | null {
  if (!data || typeof data !== "object") return null;
  const m = data as Record<string, unknown>;
  if (typeof m.type !== "string" || !TYPES.has(m.type)) return null;
  if ((m.type === "interview.started" || m.type === "interview.completed") && typeof m.sessionId !== "string") return null;
  return m as unknown as InterviewMessage;
}
