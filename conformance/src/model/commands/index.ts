/** Every model command, by resource, and the capabilities each needs (for the README's command table). */
import type { Capability } from "../../states/capabilities.ts";
import { CreateProject } from "./access.ts";
import { PlantChat, WalkChats } from "./chats.ts";
import { AbandonInterview, CompleteAbandoned, CompleteInterview, CompleteMany, CompleteWhileReading, CompleteWithAnswers, ManyInterviews, StartBackdated, StartInterview, WalkInterviews } from "./interviews.ts";
import { PlantStudy } from "./studies.ts";

export { CreateProject, ForgedKey, OtherProject } from "./access.ts";
export { settle } from "./base.ts";
export { KIND_NEEDS, ListMessages, MessageCursor, PlantChat, ReadChat, WalkChats, type MessageKind } from "./chats.ts";
export { AbandonInterview, CompleteAbandoned, CompleteInterview, CompleteMany, CompleteWhileReading, CompleteWithAnswers, ListByReference, ListInterviews, ManyInterviews, ReadInterview, StartBackdated, StartInterview, TIMEOUT, WalkInterviews } from "./interviews.ts";
export { Launch } from "./participant.ts";
export { PlantStudy, ReadExperiments, ReadStudy } from "./studies.ts";
export { DeleteWebhook, GetWebhook, PutWebhook } from "./webhooks.ts";

/** Command name -> the provider-states capabilities it needs (commands needing none are absent). */
export const COMMAND_NEEDS: Record<string, Capability[]> = {
  startInterview: StartInterview.needs, startBackdated: StartBackdated.needs, completeInterview: CompleteInterview.needs, completeMany: CompleteMany.needs,
  completeWithAnswers: CompleteWithAnswers.needs, completeWhileReading: CompleteWhileReading.needs, abandonInterview: AbandonInterview.needs,
  completeAbandoned: CompleteAbandoned.needs, walkInterviews: WalkInterviews.needs, plantStudy: PlantStudy.needs, plantChat: PlantChat.needs,
  walkChats: WalkChats.needs, createProject: CreateProject.needs, manyInterviews: ManyInterviews.needs,
};
