/**
 * InterviewHost: the built-in prompt for a pending invite and a full-screen iframe for the active launch,
 * the web reference of the React Native component. The app's `visible` gates it; it still needs an invite or
 * a launch to show anything.
 */
import { useEffect, useRef } from "react";
import type { InterviewClient } from "../core/client.ts";
import { parseMessage, type InterviewMessage } from "./protocol.ts";
import { useInterviews } from "./useInterviews.ts";

export interface InterviewHostProps {
  client: InterviewClient;
  visible?: boolean;
  showPrompt?: boolean;
  allowedOrigins?: readonly string[];
  onLoaded?: (event: InterviewMessage) => void;
  onStarted?: (event: InterviewMessage, sessionId: string) => void;
  onCompleted?: (event: InterviewMessage, sessionId: string) => void;
  onAbandoned?: (event: InterviewMessage, sessionId?: string) => void;
  onClosed?: (event: InterviewMessage | { type: "host.close" }, reason: "user" | "system") => void;
  onError?: (error: Error, event: unknown) => void;
}

const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

export function InterviewHost(props: InterviewHostProps) {
  const { client, visible = true, showPrompt = true, allowedOrigins = [] } = props;
  const { pendingInvite, activeLaunch } = useInterviews(client);
  const latest = useRef(props);
  latest.current = props;
  const shownFor = useRef<string | null>(null);

  const promptVisible = visible && showPrompt && pendingInvite !== null && activeLaunch === null;
  useEffect(() => {
    if (promptVisible && pendingInvite && shownFor.current !== pendingInvite.launchToken) {
      shownFor.current = pendingInvite.launchToken;
      client.reportPromptShown();
    }
  }, [promptVisible, pendingInvite, client]);

  useEffect(() => {
    if (!activeLaunch) return;
    const allowed = new Set([originOf(activeLaunch.url), ...allowedOrigins.map(originOf)].filter(Boolean));
    const onMessage = (e: MessageEvent) => {
      const p = latest.current;
      if (!allowed.has(e.origin)) {
        const error = new Error(`message from a disallowed origin: ${e.origin}`);
        client.diagnose({ type: "bridge_error", error: error.message });
        p.onError?.(error, e.data);
        return;
      }
      const m = parseMessage(e.data);
      if (!m) {
        p.onError?.(new Error("malformed interview message"), e.data);
        return;
      }
      if (m.type === "interview.loaded") p.onLoaded?.(m);
      if (m.type === "interview.started") p.onStarted?.(m, m.sessionId);
      if (m.type === "interview.completed") p.onCompleted?.(m, m.sessionId);
      if (m.type === "interview.abandoned") p.onAbandoned?.(m, m.sessionId);
      if (m.type === "interview.closed") {
        client.closeActiveLaunch();
        p.onClosed?.(m, m.reason === "user" ? "user" : "system");
      }
    };
    window.addEventListener("message", onMessage);
    return () => window.removeEventListener("message", onMessage);
  }, [activeLaunch, allowedOrigins, client]);

  if (!visible) return null;
  if (activeLaunch) {
    return (
      <div role="dialog" aria-label="Interview" style={{ position: "fixed", inset: 0, background: "#fff", zIndex: 2147483000 }}>
        <button
          type="button"
          aria-label="Close interview"
          onClick={() => {
            client.closeActiveLaunch();
            latest.current.onClosed?.({ type: "host.close" }, "user");
          }}
        >
          ×
        </button>
        <iframe title="Interview" src={activeLaunch.url} allow="microphone" style={{ border: 0, width: "100%", height: "100%" }} />
      </div>
    );
  }
  if (promptVisible && pendingInvite) {
    return (
      <div role="alertdialog" aria-label={pendingInvite.prompt.title}>
        <h2>{pendingInvite.prompt.title}</h2>
        <p>{pendingInvite.prompt.body}</p>
        <button type="button" onClick={() => void client.startPendingInvite()}>{pendingInvite.prompt.acceptLabel}</button>
        <button type="button" onClick={() => client.dismissPendingInvite()}>{pendingInvite.prompt.dismissLabel}</button>
      </div>
    );
  }
  return null;
}
