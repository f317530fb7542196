/** Every model command, by resource. */
export { CreateProject, ForgedKey, OtherProject } from "./access.ts";
export { settle } from "./base.ts";
export { KIND_NEEDS, ListMessages, MessageCursor, PlantChat, ReadChat, WalkChats, type MessageKind } from "./chats.ts";
export { AbandonInterview, CompleteAbandoned, CompleteInterview, CompleteMany, CompleteWhileReading, CompleteWithAnswers, ListInterviews, ReadInterview, StartInterview, WalkInterviews } from "./interviews.ts";
export { PlantStudy, ReadExperiments, ReadStudy } from "./studies.ts";
export { DeleteWebhook, GetWebhook, PutWebhook } from "./webhooks.ts";
