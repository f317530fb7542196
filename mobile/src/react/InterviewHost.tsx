/**
 * InterviewHost: the built-in prompt for a pending invite and a full-screen iframe for the active launch; the web
 * reference of the React Native component. `visible` is the app's gate: it still needs an invite or a launch to
 * show anything, and hiding it unmounts the iframe (a voice interview must not keep the microphone while hidden).
 */
import { useEffect, useRef, useState } from "react";
import type { InterviewClient } from "../core/client.ts";
import { originOf } from "../core/links.ts";
import type { ActiveLaunch } from "../core/types.ts";
import { parseMessage, type HostCloseEvent, type InterviewMessage } from "./protocol.ts";
import { useInterviews } from "./useInterviews.ts";

export interface InterviewHostProps {
  client: InterviewClient;
  /** App-controlled gate (default true). */
  visible?: boolean;
  /** Render the built-in prompt (default true); false for a custom prompt driven by useInterviews. */
  showPrompt?: boolean;
  /** Extra origins whose messages are accepted; the launch URL's origin always is. */
  allowedOrigins?: readonly string[];
  onLoaded?: (event: InterviewMessage) => void;
  onStarted?: (event: InterviewMessage, sessionId: string) => void;
  onCompleted?: (event: InterviewMessage, sessionId: string) => void;
  onAbandoned?: (event: InterviewMessage, sessionId?: string) => void;
  onClosed?: (event: InterviewMessage | HostCloseEvent, reason: "user" | "system") => void;
  /** A message from a disallowed origin, a malformed message, or a failed accept; `event` is what arrived. */
  onError?: (error: Error, event: unknown) => void;
}


export function InterviewHost(props: InterviewHostProps) {
  const { client, visible = true, showPrompt = true, allowedOrigins = [] } = props;
  const { pendingInvite, activeLaunch } = useInterviews(client);
  // Callbacks are read through a ref so that new closures on every render do not re-subscribe the listener.
  const latest = useRef(props);
  latest.current = props;
  const [busy, setBusy] = useState(false);
  /** Set just before this host clears the launch itself, so the change is not reported again as a system close. */
  const closingOurselves = useRef<ActiveLaunch | null>(null);
  const previousLaunch = useRef<ActiveLaunch | null>(activeLaunch);

  const promptVisible = visible && showPrompt && pendingInvite !== null && activeLaunch === null;
  useEffect(() => {
    if (promptVisible) client.reportPromptShown();
  }, [promptVisible, pendingInvite, client]);

  // A launch that disappears without the user or the page closing it (setUser, another link) is a system close.
  useEffect(() => {
    const before = previousLaunch.current;
    previousLaunch.current = activeLaunch;
    if (!before || before === activeLaunch) return;
    if (closingOurselves.current === before) closingOurselves.current = null;
    else latest.current.onClosed?.({ type: "host.launch_ended" }, "system");
  }, [activeLaunch]);

  const originsKey = allowedOrigins.join(" ");
  useEffect(() => {
    if (!activeLaunch) return;
    const launch = activeLaunch;
    const allowed = new Set([launch.url, ...originsKey.split(" ")].map(originOf).filter((o): o is string => o !== null));
    const onMessage = (e: MessageEvent) => {
      // The app posting to its own window (dev tools, other libraries) is not the interview talking.
      if (typeof window !== "undefined" && e.source === window) return;
      const p = latest.current;
      if (!allowed.has(e.origin)) {
        const error = new Error(`ignored a message from a disallowed origin: ${e.origin || "(none)"}`);
        client.diagnose({ type: "bridge_error", error: error.message });
        p.onError?.(error, e.data);
        return;
      }
      const m = parseMessage(e.data);
      if (!m) {
        const error = new Error("malformed interview message");
        client.diagnose({ type: "bridge_error", error: error.message });
        p.onError?.(error, e.data);
        return;
      }
      if (m.type === "interview.loaded") p.onLoaded?.(m);
      else if (m.type === "interview.started") p.onStarted?.(m, m.sessionId);
      else if (m.type === "interview.completed") p.onCompleted?.(m, m.sessionId);
      else if (m.type === "interview.abandoned") p.onAbandoned?.(m, m.sessionId);
      else {
        closingOurselves.current = launch;
        client.closeActiveLaunch();
        p.onClosed?.(m, m.reason ?? "system");
      }
    };
    window.addEventListener("message", onMessage);
    return () => window.removeEventListener("message", onMessage);
  }, [activeLaunch, originsKey, client]);

  if (!visible) return null;
  if (activeLaunch) {
    return (
      <div role="dialog" aria-modal="true" aria-label="Interview" style={{ position: "fixed", inset: 0, background: "#fff", zIndex: 2147483000 }}>
        <button
          type="button"
          aria-label="Close interview"
          style={{ position: "absolute", top: 8, right: 8 }}
          onClick={() => {
            closingOurselves.current = activeLaunch;
            client.closeActiveLaunch();
            latest.current.onClosed?.({ type: "host.close_button" }, "user");
          }}
        >
          ×
        </button>
        <iframe title="Interview" src={activeLaunch.url} allow="microphone; autoplay" style={{ border: 0, width: "100%", height: "100%" }} />
      </div>
    );
  }
  if (promptVisible && pendingInvite) {
    const { prompt } = pendingInvite;
    const accept = () => {
      setBusy(true);
      // startPendingInvite never rejects; the finally only re-enables the buttons.
      void client.startPendingInvite().finally(() => setBusy(false));
    };
    return (
      <div role="alertdialog" aria-label={prompt.title}>
        <h2>{prompt.title}</h2>
        <p>{prompt.body}</p>
        <button type="button" disabled={busy} onClick={accept}>{prompt.acceptLabel}</button>
        <button type="button" disabled={busy} onClick={() => client.dismissPendingInvite()}>{prompt.dismissLabel}</button>
      </div>
    );
  }
  return null;
}
