/** useInterviews(client): the client's snapshot `{pendingInvite, activeLaunch}`, re-rendering when it changes. */
import { useSyncExternalStore } from "react";
import type { InterviewClient } from "../core/client.ts";
import type { Snapshot } from "../core/types.ts";

export function useInterviews(client: InterviewClient): Snapshot {
  return useSyncExternalStore(client.subscribe, client.getSnapshot, client.getSnapshot);
}
