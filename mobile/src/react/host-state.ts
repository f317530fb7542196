/**
 * What both hosts (React Native and web) do around their views: the prompt's `shown` report, accept and dismiss,
 * the close button, a launch ended elsewhere reported as a system close, and the page's messages dispatched to the
 * seed's callbacks. The hosts only differ in how a message arrives and what they render.
 */
import { useEffect, useRef, useState } from "react";
import type { InterviewClient } from "../core/client.ts";
import type { ActiveLaunch } from "../core/types.ts";
import { parseMessage, type HostCloseEvent, type InterviewMessage } from "./protocol.ts";
import { useInterviews } from "./useInterviews.ts";

export interface HostCallbacks {
  client: InterviewClient;
  /** App-controlled gate (default true); still needs a pending invite or an active launch to show anything. */
  visible?: boolean;
  /** Render the built-in prompt (default true); false for a custom prompt driven by useInterviews. */
  showPrompt?: boolean;
  /** Extra origins the interview may use; the launch URL's origin always may. */
  allowedOrigins?: readonly string[];
  onLoaded?: (event: InterviewMessage) => void;
  onStarted?: (event: InterviewMessage, sessionId: string) => void;
  onCompleted?: (event: InterviewMessage, sessionId: string) => void;
  onAbandoned?: (event: InterviewMessage, sessionId?: string) => void;
  onClosed?: (event: InterviewMessage | HostCloseEvent, reason: "user" | "system") => void;
  /** A message from a disallowed origin, a malformed message, or a platform failure; `event` is what arrived. */
  onError?: (error: Error, event: unknown) => void;
}

export function useHostState(props: HostCallbacks) {
  const { client, visible = true, showPrompt = true } = props;
  const { pendingInvite, activeLaunch } = useInterviews(client);
  // Callbacks are read through a ref so that new closures on every render do not re-subscribe anything.
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

  const closeLaunch = (launch: ActiveLaunch) => {
    closingOurselves.current = launch;
    client.closeActiveLaunch();
  };
  /** Reports something the host refused (a disallowed origin, a malformed message, a platform failure). */
  const reject = (message: string, event: unknown) => {
    client.diagnose({ type: "bridge_error", error: message });
    latest.current.onError?.(new Error(message), event);
  };

  return {
    pendingInvite,
    activeLaunch,
    promptVisible,
    busy,
    latest,
    accept() {
      setBusy(true);
      // startPendingInvite never rejects; the finally only re-enables the buttons.
      void client.startPendingInvite().finally(() => setBusy(false));
    },
    dismiss: () => client.dismissPendingInvite(),
    /** The host's close button (or the platform's back gesture). */
    closeByUser(launch: ActiveLaunch) {
      closeLaunch(launch);
      latest.current.onClosed?.({ type: "host.close_button" }, "user");
    },
    reject,
    /** Acts on a message from an allowed origin: the seed's callbacks, or a close the page asked for. */
    deliver(launch: ActiveLaunch, data: unknown, raw: unknown = data) {
      const m = parseMessage(data);
      if (!m) return reject("malformed interview message", raw);
      const p = latest.current;
      if (m.type === "interview.loaded") p.onLoaded?.(m);
      else if (m.type === "interview.started") p.onStarted?.(m, m.sessionId);
      else if (m.type === "interview.completed") p.onCompleted?.(m, m.sessionId);
      else if (m.type === "interview.abandoned") p.onAbandoned?.(m, m.sessionId);
      else {
        closeLaunch(launch);
        p.onClosed?.(m, m.reason ?? "system");
      }
    },
  };
}
