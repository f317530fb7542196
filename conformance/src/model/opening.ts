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
  AbandonInterview, ChangeUrlThenComplete, CompleteAbandoned, CompleteInterview, CompleteMany, CompleteSeries, CompleteWhileReading, CreateProject,
  DeleteWebhook, ForgedKey, GetWebhook, Launch, ListByReference, ListInterviews, ListMessages, MessageCursor, OtherProject, PauseStudy, PlantChat,
  PlantStudy, PutWebhook, ReadChat, RecreateWithRetry, ReadExperiments, ReadInterview, ReadStudy, StartBackdated, StartInterview, WalkChats, WalkInterviews,
  WalkWhileOthersRead, COMMANDS, KIND_NEEDS, type DrawOptions, type MessageKind,
} from "./commands/index.ts";
import type { Command } from "./commands/base.ts";

/** One fixed sequence: what it shows, and its commands. */
export interface Opening {
  what: string;
  commands: Command[];
}

/** Commands the opening leaves to the covering phase, and why (the covering phase reaches their classes every run). */
export const LEFT_TO_COVER: Record<string, string> = {
  manyInterviews: "101 to 105 interviews: the covering phase's counts unit plants 101 interviews in a study capped at 101, and its burst unit completes 101 at once, every run",
  completeWithAnswers: "each class of receiver answer (2xx, 3xx, 4xx, 5xx, a reset, no answer in time), retried or not: the covering phase's receiver-answers unit, every run",
};

/** The opening's sequences for this run: each command kept only where its capabilities are offered and it is drawn. */
export function openings(o: DrawOptions): Opening[] {
  // The commands this run draws, by the draw's own rule (commandArbitraries): capabilities offered, and the spec's
  // arbitrary given (not its reason for leaving the command out, an option being absent).
  const drawn = new Set(COMMANDS.filter((s) => !o.caps.lacking(...s.needs) && typeof s.draw(o, () => undefined) !== "string").map((s) => s.name));
  const kinds = (...k: MessageKind[]) => k.filter((x) => o.caps.has(...KIND_NEEDS[x]));
  // Every attempt answered 500: the first event of a series is dropped after its last retry.
  const failAll = new Array<number>(o.retryDelaysMs.length + 1).fill(500);
  const all: Opening[] = [
    // The slowest first (they wait on the retry schedule and the service's timers): the run's workers each take the
    // next sequence as they end one, so the quick ones fill in beside the slow.
    // Events completed during another's retries and after its drop; the webhook re-created while a retry is pending.
    // Drawn, and so opened, only where the retry schedule fits a sequence; one a sequence, so that they wait side by side.
    { what: "an event completed during another's retries", commands: [new PutWebhook("change", true), new CompleteSeries(failAll, [200], "during the retries")] },
    { what: "an event completed after another's drop", commands: [new PutWebhook("change", true), new CompleteSeries(failAll, [500, 200], "after the drop")] },
    { what: "the webhook re-created at its URL while a retry is pending", commands: [new PutWebhook("change", true), new RecreateWithRetry(true)] },
    { what: "the webhook re-created at a new URL while a retry is pending", commands: [new PutWebhook("change", true), new RecreateWithRetry(false)] },
    {
      what: "interviews back-dated into last week, this week and last month, the study paused and drafted, a completion on the service's timer",
      commands: [
        new StartBackdated("last week"), new StartBackdated("this week"), new StartBackdated("last month"), new ReadStudy(),
        new PauseStudy("paused"), new PauseStudy("draft"), new ReadExperiments(), new CompleteWhileReading(),
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
      what: "filtered lists read just before and after a completion, an abandonment, walks by status",
      commands: [
        new ListInterviews(null), new StartInterview(), new ListInterviews("started"), new ListInterviews("completed"), new CompleteInterview(0),
        new ListInterviews("started"), new ListInterviews("completed"), new ReadInterview(1), new StartInterview(), new AbandonInterview(0),
        new CompleteAbandoned(1), new ReadInterview(2), new WalkInterviews("started", 1), new WalkInterviews(null, 1), new ReadStudy(),
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
  ];
  return all.map((x) => ({ ...x, commands: x.commands.filter((c) => drawn.has(c.name)) })).filter((x) => x.commands.length > 0);
}

/** The commands the opening runs, by name (for the test that every command is opened or left to the covering phase). */
export const openedCommands = (o: DrawOptions): Set<string> => new Set(openings(o).flatMap((x) => x.commands.map((c) => c.name)));
