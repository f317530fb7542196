/** The web target: the same client core with a DOM host (an iframe), for React apps in a browser. */
import { createInterviewClient as createCore, releaseOnDispose, type InterviewClient } from "./core/client.ts";
import type { InterviewClientOptions } from "./core/types.ts";

/** The core's client; queued prompt events flush when the page is hidden (tab switched, app backgrounded). */
export function createInterviewClient(options: InterviewClientOptions): InterviewClient {
  const client = createCore(options);
  const doc = (globalThis as { document?: Document }).document;
  const onVisibility = () => {
    if (doc?.visibilityState === "hidden") void client.flush();
  };
  doc?.addEventListener?.("visibilitychange", onVisibility);
  releaseOnDispose(client, () => doc?.removeEventListener?.("visibilitychange", onVisibility));
  return client;
}

export type { InterviewClient } from "./core/client.ts";
export { inviteCodeOf } from "./core/links.ts";
export type * from "./core/types.ts";
export { useInterviews } from "./react/useInterviews.ts";
export { InterviewHost, type InterviewHostProps } from "./react/InterviewHost.tsx";
export { parseMessage, type HostCloseEvent, type InterviewMessage } from "./react/protocol.ts";
