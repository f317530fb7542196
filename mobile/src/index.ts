/**
 * `@service/interviews-react-native`: the client (default link opener: React Native's `Linking`), the
 * `useInterviews` hook and the full-screen `InterviewHost` on react-native-webview. The interview runtime is the
 * web page the host loads: nothing else to install.
 */
import { AppState, Linking } from "react-native";
import { createInterviewClient as createCore, releaseOnDispose, type InterviewClient } from "./core/client.ts";
import type { InterviewClientOptions } from "./core/types.ts";

/** The seed's createInterviewClient: `openFallbackUrl` defaults to `Linking.openURL` (a rejection gives `none`); prompt events flush on background. */
export function createInterviewClient(options: InterviewClientOptions): InterviewClient {
  // Linking.openURL rejects when nothing can open the URL: the core then answers `none`, never `external_browser`.
  const openFallbackUrl = options.openFallbackUrl ?? ((url: string) => Linking.openURL(url));
  const client = createCore({ ...options, openFallbackUrl });
  // Queued prompt events go out when the app leaves the foreground, as analytics SDKs flush theirs.
  const subscription = AppState.addEventListener("change", (state) => {
    if (state === "background" || state === "inactive") void client.flush();
  });
  releaseOnDispose(client, () => subscription.remove());
  return client;
}

export type { InterviewClient } from "./core/client.ts";
export { inviteCodeOf } from "./core/links.ts";
export type { TrackClient } from "./core/track-proxy.ts";
export type * from "./core/types.ts";
export { useInterviews } from "./react/useInterviews.ts";
export { InterviewHost, type InterviewHostProps } from "./native/InterviewHost.tsx";
export { parseMessage, type HostCloseEvent, type InterviewMessage } from "./react/protocol.ts";
