/**
 * The interview page -> host protocol. The page inside the iframe posts to its host with
 * `window.parent.postMessage(message, "*")` (in React Native: `window.ReactNativeWebView.postMessage(JSON.stringify(message))`):
 *
 *   {type: "interview.loaded"}                          the page is ready                 -> onLoaded(event)
 *   {type: "interview.started", sessionId}             the respondent started            -> onStarted(event, sessionId)
 *   {type: "interview.completed", sessionId}           the interview finished            -> onCompleted(event, sessionId)
 *   {type: "interview.abandoned", sessionId?}          left before finishing             -> onAbandoned(event, sessionId)
 *   {type: "interview.closed", reason?: "user"|"system"}  the page asks to be closed     -> launch cleared, onClosed(event, reason ?? "system")
 *
 * Only messages whose origin is the launch URL's or one of `allowedOrigins` are acted on; others are ignored and
 * reported. A message from an allowed origin that is not one of these is reported as malformed. Unknown extra
 * fields are ignored, so the page may add fields without breaking older hosts.
 */
export type InterviewMessage =
  | { type: "interview.loaded" }
  | { type: "interview.started"; sessionId: string }
  | { type: "interview.completed"; sessionId: string }
  | { type: "interview.abandoned"; sessionId?: string }
  | { type: "interview.closed"; reason?: "user" | "system" };

/** What onClosed receives when the host, not the page, ended the launch. */
export type HostCloseEvent =
  /** The user pressed the host's close button. */
  | { type: "host.close_button" }
  /** The client cleared or replaced the launch (a new identity, another link opened). */
  | { type: "host.launch_ended" };

const TYPES = new Set(["interview.loaded", "interview.started", "interview.completed", "interview.abandoned", "interview.closed"]);

/** The message as the protocol defines it, or null. Accepts the JSON string form React Native web views deliver. */
export function parseMessage(data: unknown): InterviewMessage | null {
  if (typeof data === "string") {
    try {
      data = JSON.parse(data);
    } catch {
      return null;
    }
  }
  if (!data || typeof data !== "object") return null;
  const m = data as Record<string, unknown>;
  if (typeof m.type !== "string" || !TYPES.has(m.type)) return null;
  const sessionId = typeof m.sessionId === "string" && m.sessionId !== "" ? m.sessionId : undefined;
  switch (m.type) {
    case "interview.loaded":
      return { type: m.type };
    case "interview.started":
    case "interview.completed":
      return sessionId ? { type: m.type, sessionId } : null;
    case "interview.abandoned":
      return sessionId ? { type: m.type, sessionId } : { type: m.type };
    default:
      if (m.reason !== undefined && m.reason !== "user" && m.reason !== "system") return null;
      return m.reason ? { type: "interview.closed", reason: m.reason as "user" | "system" } : { type: "interview.closed" };
  }
}
