/**
 * Participant endpoints of the mobile client library (public SDK key). Their shapes are this project's
 * design (spec/resources/participant.tsp). Eligibility is decided here, never on the device: a study that
 * is not accepting responses, or a user who already completed it, gets `not_eligible`.
 */
import { randomUUID } from "node:crypto";
import type { components } from "../../../generated/schema.d.ts";
import type { StoredStudy, StoredTriggerRule } from "../../../fixtures/types.ts";
import { iso } from "../clock.ts";
import { ApiError, badRequest, gone } from "../http/errors.ts";
import type { HandlerGroup } from "../http/types.ts";
import type { Project } from "../model/project.ts";
import { studyUsage } from "../views/studies.ts";
import type { HandlerDeps } from "./deps.ts";
import { readLaunchToken, signLaunchToken } from "./launch-tokens.ts";

type S = components["schemas"];

/** How long a resolved interview URL stays valid. */
const LAUNCH_URL_TTL_MS = 10 * 60_000;

/** The launch rule a study planted with `trigger_event` carries, in a fixture rule's shape. */
function plantedRule(study: StoredStudy): StoredTriggerRule | undefined {
  const t = study.trigger;
  if (!t) return undefined;
  const prompt = { title: "Got five minutes?", body: `Tell us about ${study.product_name} in a short interview.`, acceptLabel: "Start", dismissLabel: "Not now" };
  return { id: t.rule_id, project_id: study.project_id, event_name: t.event_name, study_id: study.id, prompt, mode: t.mode };
}

function notEligible(reason: string, attribution: Partial<S["LaunchDecision"]>): S["LaunchDecision"] {
  return { object: "launch", mode: "not_eligible", url: null, expiresAt: null, reason, ...attribution };
}

export function participantHandlers(deps: HandlerDeps): HandlerGroup<"getParticipantConfig" | "createParticipantLaunch" | "createPromptEvent"> {
  const { clock, launchTokenSecret: secret, interviews, studies } = deps;

  async function decide(project: Project, study: StoredStudy | undefined, mode: "webview" | "external_browser", referenceId: string | null, attribution: Partial<S["LaunchDecision"]>): Promise<S["LaunchDecision"]> {
    const now = clock.now();
    if (!study || !(await studyUsage(interviews, project, study, now)).accepting_responses) return notEligible("not_accepting_responses", attribution);
    if (referenceId && (await interviews.completedBy(project, study.id, referenceId))) return notEligible("already_completed", attribution);
    const url = new URL(study.interview_link);
    if (referenceId) url.searchParams.set("reference_id", referenceId);
    url.searchParams.set("launch", randomUUID());
    return { object: "launch", mode, url: url.toString(), expiresAt: iso(now + LAUNCH_URL_TTL_MS), reason: null, ...attribution };
  }

  /** The rule `ruleId` of the study `studyId` planted with a trigger event (a launch token's claim), if it still has it. */
  async function plantedRuleOf(project: Project, studyId: string, ruleId: string): Promise<StoredTriggerRule | undefined> {
    const study = await studies.get(project, studyId);
    const rule = study && plantedRule(study);
    return rule?.id === ruleId ? rule : undefined;
  }

  return {
    async getParticipantConfig({ project, query }) {
      const referenceId = query.referenceId ?? null;
      const expiresAt = clock.now() + deps.launchTokenTtlMs;
      const token = (ruleId: string, audienceId: string | null, studyId?: string) => signLaunchToken({ r: ruleId, u: referenceId, a: audienceId, e: expiresAt, ...(studyId ? { s: studyId } : {}) }, secret);
      // The rules of studies planted with a trigger event, while they are active, after the fixture rules.
      const planted = (await studies.active(project)).flatMap((st) => plantedRule(st) ?? []).reverse();
      const rules = new Map(project.triggerRules.map((r) => [r.id, r]));
      const audienceMatches: S["AudienceMatch"][] = [];
      if (referenceId) {
        for (const a of project.audiences) {
          const rule = rules.get(a.launch_rule_id);
          if (!rule || !a.reference_ids.includes(referenceId)) continue;
          audienceMatches.push({
            audienceId: a.id, launchRuleId: rule.id, experimentId: rule.study_id, prompt: rule.prompt,
            launchToken: token(rule.id, a.id), launchTokenExpiresAt: iso(expiresAt),
          });
        }
      }
      return {
        status: 200,
        body: {
          object: "participant_config",
          ttlSeconds: deps.participantConfigTtlSeconds,
          triggerRules: [...project.triggerRules, ...planted].map((r) => ({
            launchRuleId: r.id, eventName: r.event_name, experimentId: r.study_id, prompt: r.prompt,
            launchToken: token(r.id, null, planted.includes(r) ? r.study_id : undefined), launchTokenExpiresAt: iso(expiresAt),
          })),
          audienceMatches,
        },
      };
    },

    async createParticipantLaunch({ project, body }) {
      const referenceId = body.referenceId;
      // The contract's oneOf refuses both and neither before this runs; kept so the handler never guesses.
      if (("launchToken" in body) === ("inviteCode" in body)) {
        throw new ApiError(400, "invalid_request_error", "Invalid parameters", [
          { location: "body", field: "launchToken", message: "exactly one of launchToken and inviteCode is required" },
        ]);
      }
      if ("inviteCode" in body) {
        const invite = project.invites.get(body.inviteCode);
        if (!invite) return { status: 200, body: notEligible("unknown_invite", {}) };
        const attribution = { experimentId: invite.study_id, ...(invite.launch_rule_id ? { launchRuleId: invite.launch_rule_id } : {}) };
        return { status: 200, body: await decide(project, await studies.get(project, invite.study_id), invite.mode, referenceId, attribution) };
      }
      const claim = readLaunchToken(body.launchToken, secret);
      const rule = claim && (claim.s === undefined ? project.triggerRules.find((r) => r.id === claim.r) : await plantedRuleOf(project, claim.s, claim.r));
      if (!claim || !rule) throw badRequest("Invalid launch token");
      if (claim.u !== referenceId) throw badRequest("Launch token was issued for another referenceId");
      if (claim.e <= clock.now()) throw gone("Launch token expired");
      const attribution = { launchRuleId: rule.id, experimentId: rule.study_id, ...(claim.a ? { audienceId: claim.a } : {}) };
      return { status: 200, body: await decide(project, await studies.get(project, rule.study_id), rule.mode, referenceId, attribution) };
    },

    async createPromptEvent({ project, body }) {
      const duplicate = !(await deps.promptEvents.record(project, body.eventId, body.phase, iso(clock.now())));
      return { status: 202, body: { object: "prompt_event", id: body.eventId, duplicate } };
    },
  };
}
