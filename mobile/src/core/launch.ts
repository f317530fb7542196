/**
 * The `launch` effect's request: what accepting an invite sends to `POST /launches`. The app's metadata and the
 * mapped properties of the event that made the invite go with it; `triggerEvent` is attribution only, so a name
 * longer than the server accepts is left out (with a diagnostic) rather than failing the launch.
 */
import type { LaunchRequest } from "./api.ts";
import type { Diagnostic, PendingInvite, Primitive } from "./types.ts";

/** The server caps `triggerEvent`. */
const TRIGGER_EVENT_MAX = 200;

export function launchRequest(invite: PendingInvite, referenceId: string | null, metadata: Record<string, Primitive>, eventMetadata: Record<string, Primitive> | undefined, diagnose: (d: Diagnostic) => void): LaunchRequest {
  const meta = { ...metadata, ...(eventMetadata ?? {}) };
  let triggerEvent = invite.triggerEvent;
  if (triggerEvent && triggerEvent.length > TRIGGER_EVENT_MAX) {
    diagnose({ type: "trigger_event_dropped", reason: "too_long" });
    triggerEvent = undefined;
  }
  return {
    referenceId, launchToken: invite.launchToken,
    ...(triggerEvent ? { triggerEvent } : {}),
    ...(Object.keys(meta).length ? { metadata: meta } : {}),
  };
}
