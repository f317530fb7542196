/**
 * The rules of the model-based run. Seed rules hold along every path of the seed's state machine; contract rules are
 * where the seed leaves a choice open and our contract pins it (warnings at --level seed).
 */
import { contract, rules, seed } from "../rules.ts";

export const r = rules("model", {
  "webhook-state": seed("Endpoints: PUT, GET, DELETE /v1/webhooks; Errors 3", "along any sequence, PUT answers 201 with a secret when no webhook exists and 200 without it when one does; GET shows the last PUT's url and events (never the secret), or 404 after DELETE or before any PUT", ["endpoints.put-webhook", "endpoints.get-webhook", "endpoints.delete-webhook", "errors.webhook-404", "webhook-config.secret", "webhook-config.one", "limits.one-webhook", "errors.201", "errors.204"]),
  "sent-to-current": seed("Events: sent to the URL set by PUT /v1/webhooks", "an interview that completes while a subscribed webhook is configured is delivered to the URL configured at that moment, and to no earlier one", ["events.sent-to", "events.emitted-by", "service.webhook"]),
  "none-without-webhook": seed("Events: sent to the URL set by PUT, only if subscribed; Authentication 5", "an interview that completes while no webhook is configured (never set, deleted, or not subscribed) is never delivered, to any URL", ["events.sent-to", "endpoints.delete-webhook", "auth.webhook-delete"]),
  "current-secret": seed("Events: X-Webhook-Signature; Authentication 5", "every delivery is signed with the signing secret of the webhook configured when its interview completed: after DELETE and PUT, the new secret", ["events.signature", "auth.webhook-delete", "auth.signed-deliveries", "webhook-config.secret"]),
  "abandoned-silent": seed("Events: emitted by an interview finishing processing; States and transitions", "an interview abandoned before it completed never reads completed and is never delivered, whatever the webhook does afterwards", ["events.emitted-by", "transitions.interview", "states.interview"]),
  "abandon-final": contract("simulation surface", "completing an abandoned interview answers 409 and changes nothing"),
  "rest-at-delivery": seed("Events: data.interview_id, fetch the transcript with GET /v1/interviews/:id; States: sent with status completed after processing finishes", "when a delivery arrives, GET /v1/interviews/:id already answers 200 with status completed, and the payload agrees with it", ["payload.interview-id", "endpoints.interview-id", "transitions.interview", "events.emitted-by", "payload.status", "payload.completed-at", "payload.reference-id"]),
  "interview-status": seed("Interview: status; States and transitions", "a read of an interview shows the status the sequence gave it, and the statuses seen over time go started, processing, completed, never back", ["interview.status", "states.interview", "transitions.interview", "endpoints.get-interview"]),
  "interview-filter": seed("Endpoints: GET /v1/interviews (study_id, status)", "the interview list filtered by the sequence's study and a status holds exactly the sequence's interviews in that status, whatever happened before", ["endpoints.list-interviews", "interview.study-id"]),
  "interview-count": seed("Study: interview_count, total completed interviews", "a study's interview_count is the number of its completed interviews at every step", ["study.interview-count"]),
  accepting: seed("Study: accepting_responses; Derived rule", "at every step accepting_responses is true exactly when the study is active and every capped window's used is below its limit (the study's own numbers)", ["study.accepting", "states.accepting", "limits.caps"]),
  "used-bounds": seed("Study: limits.*.used", "limits.weekly.used and limits.monthly.used of the sequence's study lie between its completed and its created interviews", ["study.weekly-used", "study.monthly-used"]),
  "used-on-start": contract("usage windows", "an interview counts in limits.*.used from its creation"),
  "sim-at-cap": contract("simulation surface", "simulating an interview in a study that is not accepting responses answers 409, and nothing is created"),
  "studies-listed": seed("Endpoints: GET /v1/studies lists the active studies of the project", "a planted active study is listed once, a paused or draft one never", ["endpoints.list-studies", "states.study"]),
  "chat-visibility": seed("Chat: only customer-visible chats are exposed; Errors 2", "a planted internal, evaluation or release chat answers 404 on /v1/chats/:id and its messages and is never listed; a visible one answers 200 and is listed once", ["chat.visible-only", "errors.hidden-chat-404", "endpoints.get-chat", "endpoints.list-chats"]),
  "nullable-listed": seed("Chat: title and source, string or null", "a visible chat whose title or source is null is still listed and retrieved, with null", ["chat.title", "chat.source"]),
  "message-visibility": seed("Chat: message_count, visible messages only; Message parts: internal runtime parts never returned", "message_count and the message list hold the visible messages only, oldest first; a hidden-branch message is never listed or counted", ["chat.message-count", "endpoints.list-messages", "part.internal-hidden", "endpoints.order"]),
  "message-cursor": seed("Errors 5; Endpoints note on starting_after", "a hidden message's id as starting_after answers 400 `No such message: <id>`; a visible one's continues after it", ["errors.no-such-message", "endpoints.messages-unknown-cursor", "endpoints.starting-after"]),
  "internal-only": contract("visible messages", "a message whose every part is internal (compaction, container upload, hidden branch) is not a visible message: not listed, not counted, not a cursor"),
  isolation: seed("Authentication 3; Errors 1", "the other project reads the sequence's interviews, chats and study as 404, and its webhook never receives this project's interviews", ["auth.scope", "errors.retrieval-404", "service.key-scope"]),
  credentials: seed("Authentication 1 and 4", "a key that differs from a valid one (one character changed, cut short, lengthened, another case, the bare prefix) answers 401 at every step", ["auth.401", "auth.bearer", "errors.401", "auth.key-prefix"]),
});

/** What each command does, for the README's command table. */
export const COMMAND_DOCS: Record<string, string> = {
  putWebhook: "PUT /v1/webhooks to the other of two receiver URLs (a URL change when one is set) or the same one, subscribed or with `events: []`",
  getWebhook: "GET /v1/webhooks: the last PUT's url and events, never the secret, or 404",
  deleteWebhook: "DELETE /v1/webhooks: 204, and from then on nothing is delivered",
  startInterview: "POST /_sim/interviews held `started` in the sequence's study (409 at the cap, a contract pin)",
  completeInterview: "POST /_sim/interviews/{id}/complete (a held interview is started first when none is open); waits for the delivery the model expects, then reads the completed list",
  abandonInterview: "POST /_sim/interviews/{id}/abandon: the respondent left; it keeps its status, never completes, is never delivered",
  completeAbandoned: "POST /_sim/interviews/{id}/complete on an abandoned interview: 409 (a contract pin), still not completed, nothing delivered",
  completeWhileReading: "an interview completed on the service's own timer while the suite polls it: statuses must go forward, the delivery after completion",
  readInterview: "GET /v1/interviews/:id: the status the sequence left it in",
  listInterviews: "GET /v1/interviews?study_id=&status=: exactly the sequence's interviews in that status",
  readStudy: "GET /v1/studies/:id: interview_count, used, accepting_responses by the seed's rule on its own numbers",
  plantStudy: "POST /_sim/studies active, paused or draft with a weekly cap: listed exactly when active; an active one takes the next interviews",
  plantChat: "POST /_sim/chats of any visibility, null title or source, with visible, hidden-branch and internal-only messages: listed exactly when visible, its messages walked",
  readChat: "GET /v1/chats/:id (and messages): 404 for hidden chats, message_count of visible messages",
  listMessages: "GET /v1/chats/:id/messages walked at limit 1, 2 or 100: the visible messages, oldest first",
  messageCursor: "starting_after a planted message: continues after a visible one; 400 `No such message: <id>` for a hidden one",
  otherProject: "the other project's key: sets its own webhook, reads this sequence's study, interviews and chat (404)",
  forgedKey: "a key with one character changed, cut short, lengthened, in another case, or the bare prefix: 401",
};

/** The seed statements each command can reach (for the README's command table and the per-statement report). */
export const COMMAND_STATEMENTS: Record<string, string[]> = {
  putWebhook: ["endpoints.put-webhook", "webhook-config.secret", "webhook-config.one", "limits.one-webhook", "errors.201", "events.sent-to", "webhook-config.events", "limits.subscription"],
  getWebhook: ["endpoints.get-webhook", "errors.webhook-404", "webhook-config.secret"],
  deleteWebhook: ["endpoints.delete-webhook", "errors.204", "auth.webhook-delete", "errors.webhook-404"],
  startInterview: ["study.accepting", "states.accepting", "limits.caps", "study.weekly-used", "study.monthly-used"],
  completeInterview: ["events.emitted-by", "events.sent-to", "events.signature", "transitions.interview", "payload.interview-id", "endpoints.interview-id", "study.interview-count"],
  abandonInterview: ["events.emitted-by", "transitions.interview", "states.interview"],
  completeAbandoned: ["events.emitted-by", "transitions.interview"],
  completeWhileReading: ["transitions.interview", "states.interview", "interview.status", "events.emitted-by", "payload.status"],
  readInterview: ["endpoints.get-interview", "interview.status", "states.interview"],
  listInterviews: ["endpoints.list-interviews", "interview.study-id"],
  readStudy: ["study.interview-count", "study.accepting", "states.accepting", "study.weekly-used", "study.monthly-used", "endpoints.get-study"],
  plantStudy: ["endpoints.list-studies", "states.study", "study.status"],
  plantChat: ["chat.visible-only", "errors.hidden-chat-404", "chat.title", "chat.source", "endpoints.list-chats"],
  readChat: ["endpoints.get-chat", "chat.message-count", "errors.hidden-chat-404"],
  listMessages: ["endpoints.list-messages", "chat.message-count", "part.internal-hidden", "endpoints.order"],
  messageCursor: ["errors.no-such-message", "endpoints.messages-unknown-cursor", "endpoints.starting-after"],
  otherProject: ["auth.scope", "errors.retrieval-404", "service.key-scope", "events.sent-to"],
  forgedKey: ["auth.401", "auth.bearer", "errors.401", "auth.key-prefix"],
};
