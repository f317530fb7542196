/**
 * Prompt funnel phases posted to `prompt-events`, fire-and-forget: analytics must never delay or break the
 * prompt, so a failure only becomes a diagnostic (no offline queue). The eventId lets the server de-duplicate.
 */
import type { ParticipantApi } from "./api.ts";
import type { Clock, Diagnostic, PendingInvite, PromptPhase } from "./types.ts";

/** crypto.randomUUID where the platform has it (Node, browsers); React Native without a polyfill does not. */
function uuid(): string {
  // Typed locally: React Native's global types declare no `crypto`.
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (typeof crypto?.randomUUID === "function") return crypto.randomUUID();
  const hex = Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16));
  hex[12] = "4";
  hex[16] = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  const h = hex.join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function promptFunnel(api: ParticipantApi, clock: Clock, referenceId: () => string | null, diagnose: (d: Diagnostic) => void) {
  return function post(phase: PromptPhase, invite: PendingInvite): void {
    const body = {
      eventId: uuid(),
      phase,
      referenceId: referenceId(),
      occurredAt: new Date(clock.now()).toISOString(),
      launchRuleId: invite.launchRuleId,
      experimentId: invite.experimentId,
      ...(invite.audienceId ? { audienceId: invite.audienceId } : {}),
    };
    api.promptEvent(body).catch((err) => diagnose({ type: "prompt_event_failed", phase, error: err instanceof Error ? err.message : String(err) }));
  };
}
