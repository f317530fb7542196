/**
 * Every model command, one file each (its class, doc, statements, capabilities, arbitrary and weight), in the order
 * they stand in the mix. Adding a command is its own file and a line here.
 */
import type { Capability } from "../../states/capabilities.ts";
import type { CommandSpec } from "./base.ts";
import { putWebhook } from "./put-webhook.ts";
import { getWebhook } from "./get-webhook.ts";
import { deleteWebhook } from "./delete-webhook.ts";
import { startInterview } from "./start-interview.ts";
import { completeInterview } from "./complete-interview.ts";
import { changeUrlThenComplete } from "./change-url-then-complete.ts";
import { startBackdated } from "./start-backdated.ts";
import { completeMany } from "./complete-many.ts";
import { manyInterviews } from "./many-interviews.ts";
import { recreateWithRetry } from "./recreate-with-retry.ts";
import { completeSeries } from "./complete-series.ts";
import { completeWithAnswers } from "./complete-with-answers.ts";
import { completeWhileReading } from "./complete-while-reading.ts";
import { abandonInterview } from "./abandon-interview.ts";
import { completeAbandoned } from "./complete-abandoned.ts";
import { readInterview } from "./read-interview.ts";
import { listInterviews } from "./list-interviews.ts";
import { listByReference } from "./list-by-reference.ts";
import { readStudy } from "./read-study.ts";
import { readExperiments } from "./read-experiments.ts";
import { walkInterviews } from "./walk-interviews.ts";
import { plantStudy } from "./plant-study.ts";
import { pauseStudy } from "./pause-study.ts";
import { plantChat } from "./plant-chat.ts";
import { walkWhileOthersRead } from "./walk-while-others-read.ts";
import { walkChats } from "./walk-chats.ts";
import { readChat } from "./read-chat.ts";
import { listMessages } from "./list-messages.ts";
import { messageCursor } from "./message-cursor.ts";
import { forgedKey } from "./forged-key.ts";
import { otherProject } from "./other-project.ts";
import { createProject } from "./create-project.ts";
import { launch } from "./launch.ts";

export const COMMANDS: CommandSpec[] = [putWebhook, getWebhook, deleteWebhook, startInterview, completeInterview, changeUrlThenComplete, startBackdated, completeMany, manyInterviews, completeWithAnswers, completeSeries, recreateWithRetry, completeWhileReading, abandonInterview, completeAbandoned, readInterview, listInterviews, listByReference, readStudy, readExperiments, walkInterviews, plantStudy, pauseStudy, plantChat, walkChats, walkWhileOthersRead, readChat, listMessages, messageCursor, forgedKey, otherProject, createProject, launch];

export { settle, type CommandSpec, type DrawOptions } from "./base.ts";
export { KIND_NEEDS, type MessageKind } from "./plant-chat.ts";
export { SEQUENCE_RETRY_MS, SEQUENCE_TIMEOUT_MS } from "./complete-with-answers.ts";
export { TIMEOUT } from "../interview-steps.ts";
export { PutWebhook } from "./put-webhook.ts";
export { GetWebhook } from "./get-webhook.ts";
export { DeleteWebhook } from "./delete-webhook.ts";
export { StartInterview } from "./start-interview.ts";
export { CompleteInterview } from "./complete-interview.ts";
export { ChangeUrlThenComplete } from "./change-url-then-complete.ts";
export { StartBackdated } from "./start-backdated.ts";
export { CompleteMany } from "./complete-many.ts";
export { ManyInterviews } from "./many-interviews.ts";
export { CompleteWithAnswers } from "./complete-with-answers.ts";
export { CompleteSeries } from "./complete-series.ts";
export { RecreateWithRetry } from "./recreate-with-retry.ts";
export { CompleteWhileReading } from "./complete-while-reading.ts";
export { AbandonInterview } from "./abandon-interview.ts";
export { PauseStudy } from "./pause-study.ts";
export { CompleteAbandoned } from "./complete-abandoned.ts";
export { ReadInterview } from "./read-interview.ts";
export { ListInterviews } from "./list-interviews.ts";
export { ListByReference } from "./list-by-reference.ts";
export { ReadStudy } from "./read-study.ts";
export { ReadExperiments } from "./read-experiments.ts";
export { WalkInterviews } from "./walk-interviews.ts";
export { PlantStudy } from "./plant-study.ts";
export { PlantChat } from "./plant-chat.ts";
export { WalkChats } from "./walk-chats.ts";
export { WalkWhileOthersRead } from "./walk-while-others-read.ts";
export { ReadChat } from "./read-chat.ts";
export { ListMessages } from "./list-messages.ts";
export { MessageCursor } from "./message-cursor.ts";
export { ForgedKey } from "./forged-key.ts";
export { OtherProject } from "./other-project.ts";
export { CreateProject } from "./create-project.ts";
export { Launch } from "./launch.ts";

/** Command name -> the provider-states capabilities it needs (commands needing none are absent). */
export const COMMAND_NEEDS: Record<string, Capability[]> = Object.fromEntries(COMMANDS.filter((c) => c.needs.length).map((c) => [c.name, c.needs]));

/** Command name -> the seed statements it can reach. */
export const COMMAND_STATEMENTS: Record<string, string[]> = Object.fromEntries(COMMANDS.map((c) => [c.name, c.statements]));

/** Command name -> what it does. */
export const COMMAND_DOCS: Record<string, string> = Object.fromEntries(COMMANDS.map((c) => [c.name, c.doc]));
