/**
 * InterviewHost for the web: the built-in prompt for a pending invite and a full-screen iframe for the active
 * launch (the React Native host renders a web view instead; both share host-state.ts). `visible` is the app's
 * gate: hiding it unmounts the iframe (a voice interview must not keep the microphone while hidden).
 */
import { useEffect } from "react";
import { originOf } from "../core/links.ts";
import { useHostState, type HostCallbacks } from "./host-state.ts";

export type InterviewHostProps = HostCallbacks;

export function InterviewHost(props: InterviewHostProps) {
  const { visible = true, allowedOrigins = [] } = props;
  const host = useHostState(props);
  const { activeLaunch, pendingInvite } = host;

  const originsKey = allowedOrigins.join(" ");
  useEffect(() => {
    if (!activeLaunch) return;
    const launch = activeLaunch;
    // The launch's origin, the server's fallback URLs' and the app's extra ones.
    const fallbacks = typeof props.client.fallbackOrigins === "function" ? props.client.fallbackOrigins() : [];
    const allowed = new Set([launch.url, ...fallbacks, ...originsKey.split(" ")].map(originOf).filter((o): o is string => o !== null));
    const onMessage = (e: MessageEvent) => {
      // The app posting to its own window (dev tools, other libraries) is not the interview talking.
      if (typeof window !== "undefined" && e.source === window) return;
      if (!allowed.has(e.origin)) return host.reject(`ignored a message from a disallowed origin: ${e.origin || "(none)"}`, e.data);
      host.deliver(launch, e.data);
    };
    window.addEventListener("message", onMessage);
    return () => window.removeEventListener("message", onMessage);
    // host's methods read the latest props through a ref; the listener follows the launch and the origins only.
  }, [activeLaunch, originsKey]);

  if (!visible) return null;
  if (activeLaunch) {
    return (
      <div role="dialog" aria-modal="true" aria-label="Interview" style={{ position: "fixed", inset: 0, background: "#fff", zIndex: 2147483000 }}>
        <button type="button" aria-label="Close interview" style={{ position: "absolute", top: 8, right: 8 }} onClick={() => host.closeByUser(activeLaunch)}>
          ×
        </button>
        <iframe title="Interview" src={activeLaunch.url} allow="microphone; autoplay" style={{ border: 0, width: "100%", height: "100%" }} />
      </div>
    );
  }
  if (host.promptVisible && pendingInvite) {
    const { prompt } = pendingInvite;
    return (
      <div role="alertdialog" aria-label={prompt.title}>
        <h2>{prompt.title}</h2>
        <p>{prompt.body}</p>
        <button type="button" disabled={host.busy} onClick={host.accept}>{prompt.acceptLabel}</button>
        <button type="button" disabled={host.busy} onClick={host.dismiss}>{prompt.dismissLabel}</button>
      </div>
    );
  }
  return null;
}
