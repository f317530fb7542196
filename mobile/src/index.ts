/**
 * `@service/interviews-react-native`: the client (default link opener: React Native's `Linking`), the
 * `useInterviews` hook and the full-screen `InterviewHost` on react-native-webview. The interview runtime is the
 * web page the host loads: nothing else to install.
 */
import { Linking } from "react-native";
import { createInterviewClient as createCore, type InterviewClient } from "./core/client.ts";
import type { InterviewClientOptions } from "./core/types.ts";

/** The seed's createInterviewClient: `openFallbackUrl` defaults to `Linking.openURL`. */
export function createInterviewClient(options: InterviewClientOptions): InterviewClient {
  const openFallbackUrl =
    options.openFallbackUrl ??
    ((url: string) => {
      Linking.openURL(url).catch((err: unknown) => {
        try {
          options.onDiagnostic?.({ type: "bridge_error", error: `Linking.openURL failed: ${err instanceof Error ? err.message : String(err)}` });
        } catch {
          // A diagnostics handler must never break the app.
        }
      });
    });
  return createCore({ ...options, openFallbackUrl });
}

export type { InterviewClient } from "./core/client.ts";
export { inviteCodeOf } from "./core/links.ts";
export type { TrackClient } from "./core/track-proxy.ts";
export type * from "./core/types.ts";
export { useInterviews } from "./react/useInterviews.ts";
export { InterviewHost, type InterviewHostProps } from "./native/InterviewHost.tsx";
export { parseMessage, type HostCloseEvent, type InterviewMessage } from "./react/protocol.ts";
