/**
 * The model's opening: fixed sequences run before the random ones in every model run, so that each command meets
 * every class of its input every run (a hidden message's id as a cursor, each forgery of a key, each visibility of a
 * chat with a null title or source, a filtered list read just before a completion moves an interview out of it, a
 * webhook deleted then completions, a URL changed then a completion) instead of when a draw happens to reach it. The
 * random sequences then explore the combinations.
 *
 * Each sequence starts as every model sequence does (no webhook, the sequence's study with a weekly cap of 4, a
 * visible chat holding every kind of message the capabilities allow, one abandoned interview), so each starts at most
 * three interviews. A command whose capabilities the target lacks is left out of its sequence, as from the draw.
 */
import {
  AbandonInterview, ChangeUrlThenComplete, CompleteAbandoned, CompleteInterview, CompleteMany, CompleteSeries, CompleteWhileReading, CompleteWithAnswers, COMMAND_NEEDS, CreateProject,
  DeleteWebhook, ForgedKey, GetWebhook, Launch, ListByReference, ListInterviews, ListMessages, MessageCursor, OtherProject, PauseStudy, PlantChat,
  PlantStudy, PutWebhook, ReadChat, RecreateWithRetry, SEQUENCE_TIMEOUT_MS, TIMEOUT, ReadExperiments, ReadInterview, ReadStudy, StartBackdated, StartInterview, WalkChats, WalkInterviews,
  WalkWhileOthersRead, COMMANDS, KIND_NEEDS, type DrawOptions, type MessageKind,
} from "./commands/index.ts";
import type { Command } from "./commands/base.ts";
import { RESET } from "../receiver.ts";

/** One fixed sequence: what it shows, and its commands. */
export interface Opening {
  what: string;
  commands: Command[];
}

/** Commands the opening leaves to the covering phase, and why (the covering phase reaches their classes every run). */
export const LEFT_TO_COVER: Record<string, string> = {
  manyInterviews: "101 to 105 interviews: the covering phase's counts unit plants 101 interviews in a study capped at 101, and its burst unit completes 101 at once, every run",
};

/** The opening's sequences for this run: each command kept only where its capabilities are offered and it is drawn. */
export function openings(o: DrawOptions): Opening[] {
  const offered = (c: Command) => !o.caps.lacking(...(COMMAND_NEEDS[c.name] ?? []));
  const kinds = (...k: MessageKind[]) => k.filter((x) => o.caps.has(...KIND_NEEDS[x]));
  // Every attempt answered 500: the first event of a series is dropped after its last retry.
  const failAll = new Array<number>(o.retryDelaysMs.length + 1).fill(500);
  const all: Opening[] = [
    // The quick ones first (a batch ends with its slowest sequence), those that wait on the retry schedule last.
    {
      what: "a chat's messages at every limit, each message's id as a cursor, chats of every visibility with null titles and sources",
      commands: [
        new ListMessages(0, 1), new ListMessages(0, 2), new ListMessages(0, 100), new MessageCursor(0, 0), new MessageCursor(0, 1),
        new MessageCursor(0, 2), new MessageCursor(0, 3), new ReadChat(0),
        new PlantChat("visible", null, "web", kinds("visible", "hidden", "visible")), new PlantChat("visible", "Model chat", null, kinds("internal", "visible")),
        new PlantChat("internal", "Model chat", "analyst", kinds("visible")), new PlantChat("evaluation", null, null, kinds("visible")),
        new PlantChat("release", "Model chat", "mcp", kinds("visible")), new ReadChat(1), new ReadChat(2), new ReadChat(3), new ReadChat(4), new ReadChat(5),
        new MessageCursor(1, 1), new MessageCursor(2, 0), new WalkChats(2),
      ],
    },
    {
      what: "keys forged, other projects, studies planted in every status, the experiments report, a launch",
      commands: [
        new ForgedKey("case"), new OtherProject(true), new OtherProject(false), new WalkWhileOthersRead(2), new CreateProject(),
        new PlantStudy("active", 0), new PlantStudy("paused", null), new PlantStudy("draft", 1), new ReadExperiments(), new Launch(),
      ],
    },
    {
      what: "filtered lists read just before and after a completion, an abandonment, walks by status",
      commands: [
        new ListInterviews(null), new StartInterview(), new ListInterviews("started"), new ListInterviews("completed"), new CompleteInterview(0),
        new ListInterviews("started"), new ListInterviews("completed"), new ReadInterview(1), new StartInterview(), new AbandonInterview(0),
        new CompleteAbandoned(1), new ReadInterview(2), new WalkInterviews("started", 1), new WalkInterviews(null, 1), new ReadStudy(),
      ],
    },
    {
      what: "the webhook's life: read absent, created, the same URL again, unsubscribed, deleted, re-created, a completion at each",
      commands: [
        new GetWebhook(), new PutWebhook("change", true), new GetWebhook(), new PutWebhook("same", true), new CompleteInterview(0),
        new PutWebhook("change", false), new GetWebhook(), new CompleteInterview(0), new PutWebhook("same", true), new DeleteWebhook(),
        new GetWebhook(), new DeleteWebhook(), new CompleteInterview(0), new PutWebhook("change", true), new GetWebhook(), new CompleteAbandoned(0),
      ],
    },
    {
      what: "a URL change then a completion, a completion read as it is delivered, completions back to back",
      commands: [new ChangeUrlThenComplete(0), new ReadInterview(1), new CompleteMany(2), new ReadStudy()],
    },
    {
      what: "reference ids beyond ASCII, full of characters a link percent-encodes, and an earlier one's case twin",
      commands: [
        new StartInterview(false, "unicode"), new StartInterview(false, "encoded"), new StartInterview(false, "case-twin"),
        new ListByReference(1), new ListByReference(2), new ListByReference(3), new ReadInterview(3),
      ],
    },
    ...(o.caps.has("interview-link")
      ? [{ what: "interviews started through the study's link", commands: [new StartInterview(true, "plain"), new StartInterview(true, "encoded"), new ListByReference(1), new ListByReference(2), new ReadInterview(2)] }]
      : []),
    {
      what: "interviews back-dated into last week, this week and last month, the study paused and drafted, a completion on the service's timer",
      commands: [
        new StartBackdated("last week"), new StartBackdated("this week"), new StartBackdated("last month"), new ReadStudy(),
        new PauseStudy("paused"), new PauseStudy("draft"), new ReadExperiments(), new CompleteWhileReading(),
      ],
    },
    // The receiver's answers, each class (2xx, 3xx, 4xx, 5xx, a reset, no answer in time) on an attempt, retried or
    // dropped; events completed during another's retries and after its drop; the webhook re-created while a retry is
    // pending. Drawn, and so opened, only where the retry schedule fits a sequence.
    {
      what: "receiver answers of every class on first attempts and retries, one event failing until it is dropped",
      commands: [new PutWebhook("change", true), new CompleteWithAnswers([301, 202]), new CompleteWithAnswers([404, 502, 299]), new CompleteWithAnswers([RESET, ...failAll.slice(1)])],
    },
    {
      what: "receiver answers: no answer within the timeout (where it fits a sequence), 4xx that are not 404, 3xx that are not 301",
      commands: [new PutWebhook("change", true), new CompleteWithAnswers(o.receiverTimeoutMs <= SEQUENCE_TIMEOUT_MS ? [TIMEOUT, 200] : [429, 204]), new CompleteWithAnswers([410, 302, 401, 200]), new CompleteWithAnswers([400, 503, 200])],
    },
    {
      what: "an event completed during another's retries, then the webhook re-created at its URL while a retry is pending",
      commands: [new PutWebhook("change", true), new CompleteSeries(failAll, [200], "during the retries"), new RecreateWithRetry(true)],
    },
    {
      what: "an event completed after another's drop, then the webhook re-created at a new URL while a retry is pending",
      commands: [new PutWebhook("change", true), new CompleteSeries(failAll, [500, 200], "after the drop"), new RecreateWithRetry(false)],
    },
  ];
  return all.map((x) => ({ ...x, commands: x.commands.filter(offered).filter((c) => drawable(o, c)) })).filter((x) => x.commands.length > 0);
}

/** Whether the run draws the command at all (its spec answers why not where an option it needs is absent). */
function drawable(o: DrawOptions, c: Command): boolean {
  const spec = COMMANDS.find((s) => s.name === c.name);
  return !!spec && typeof spec.draw(o, () => undefined) !== "string";
}

/** The commands the opening runs, by name (for the test that every command is opened or left to the covering phase). */
export const openedCommands = (o: DrawOptions): Set<string> => new Set(openings(o).flatMap((x) => x.commands.map((c) => c.name)));
