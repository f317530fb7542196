/**
 * The seed (the service description), statement by statement: every table row of every resource, every state and
 * transition, every endpoint line, every numbered rule of Authentication, Events, Errors, Limits and Versioning, the
 * participant endpoints and the rest of the text. Each statement has a stable id and its exact quote. Seed rules cite
 * the statements they enforce (`seed(source, text, [ids])`); a statement no rule cites carries an `excuse` naming why
 * it cannot be tested and what would make it testable. `test/conformance/matrix.test.ts` fails on a statement that is
 * neither enforced nor excused, on a rule citing an id that is not here, and (beside the seed) on a quote the seed
 * does not contain or a line of the seed no statement quotes. Ids never change meaning; new ones are added.
 */
export interface Statement {
  id: string;
  /** The seed heading it sits under. */
  section: string;
  /** Its exact text in the seed (a substring of one line). */
  quote: string;
  /** Why no rule enforces it, and what would make it testable. */
  excuse?: string;
}

const S = (section: string) => (id: string, quote: string, excuse?: string): Statement => ({ id, section, quote, ...(excuse ? { excuse } : {}) });

/** Excuse texts, by kind. */
const open = (what: string) => `the seed leaves it open: it says "not shown"; ${what}`;
const unobservable = (what: string) => `not observable through the API: ${what}`;
const overview = (where: string) => `overview: restated as testable statements under ${where}`;
const mobile = (what: string) => unobservable(`a behaviour of the mobile client library inside an app, not of the HTTP API; ${what} is held by @service/interviews-react-native's own tests (mobile/test, Jest with React Native's preset)`);

const intro = S("Project Data API, Interview Webhooks and Mobile Client Library");
const what = S("What the service does");
const res = S("Resources and their fields");
const list = S("List envelope");
const study = S("Study");
const interview = S("Interview");
const release = S("Release");
const chat = S("Chat");
const message = S("Message");
const webhook = S("Webhook configuration");
const metrics = S("Success metrics (experiments)");
const states = S("States and transitions");
const endpoints = S("Endpoints");
const participant = S("Participant endpoints (used by the mobile client library)");
const library = S("Mobile client library surface");
const auth = S("Authentication");
const events = S("Events");
const errors = S("Errors");
const limits = S("Limits");
const versioning = S("Versioning");

export const statements: Statement[] = [
  intro("intro.scope", "This document covers the whole service", overview("Resources, Endpoints, Events and the mobile client library")),
  intro("conventions.base-url", "`{base_url}` is the service address up to and including `/api`; every path below is written as `/v1/...` and is appended to it."),
  intro("conventions.json", "All responses are JSON except `204`."),
  intro("conventions.placeholders", "Identifiers shown as `<...>` are placeholders.", overview("the statements that use them (a notation, not a behaviour)")),

  what("service.purpose", "The service runs AI-conducted research interviews and product analysis for a project.", overview("Resources and Endpoints")),
  what("service.study-link", "Each study has a public interview link sent to respondents."),
  what("service.interview-study", "An **interview** is one conversation between an AI interviewer and a respondent, belonging to one study."),
  what("service.release-chat", "linked to a chat in which the release analysis happened"),
  what("service.chat-public", "A public API exposes only customer-visible chat metadata and transcripts."),
  what("service.chat-agent", "A **chat** is a conversation thread with an AI agent that answers product questions", unobservable("how the AI agent answers, which data sources it reads and whether it opens pull requests happen outside the API; only the resulting chats and messages are read")),
  what("service.webhook", "A **webhook** (one per project) receives a signed HTTP POST each time an interview completes."),
  what("service.mobile", "A **mobile client library** lets an app wrap its analytics client", mobile("wrapping and in-app launching")),
  what("service.metrics", "**Success metrics** measure whether an experiment's treatment changed user behavior", overview("Success metrics (experiments)")),
  what("service.key-scope", "Every API key is scoped to exactly one project; a caller only sees that project's data."),
  what("service.repository-ui", "Connecting the code repository is done in the product UI", unobservable("done in the product UI, and \"No API is involved\"; nothing on the API changes until releases appear")),

  res("resources.ids", "All ids are UUID strings."),
  res("resources.timestamps", "All timestamps are ISO 8601 strings (UTC, millisecond precision)."),
  res("resources.object", "Every resource carries an `object` field naming its kind."),

  list("list.object", "| object | string | always `list` |"),
  list("list.data", "| data | array | items of the listed resource |"),
  list("list.has-more", "| has_more | boolean | `true` when another page exists |"),

  study("study.id", "| id | string (UUID) | |"),
  study("study.object", "| object | string | `study` |"),
  study("study.name", "| name | string | display name |"),
  study("study.status", "| status | string | `active`, `paused`, `draft` |"),
  study("study.interview-link", "| interview_link | string (URL) | public respondent URL"),
  study("study.reference-tag", "appending query parameter `reference_id=<your_user_id>` tags the interview with that id"),
  study("study.accepting", "| accepting_responses | boolean | `true` when the study is active and within all usage limits |"),
  study("study.languages", "| supported_languages | string[] | language codes |"),
  study("study.limits", "| limits | object | `monthly` and `weekly`, each `{limit, used}` |"),
  study("study.monthly-limit", "| limits.monthly.limit | integer or null | monthly interview cap; `null` = unlimited |"),
  study("study.monthly-used", "| limits.monthly.used | integer | interviews used in the current billing period |"),
  study("study.weekly-limit", "| limits.weekly.limit | integer or null | weekly cap; `null` = unlimited |"),
  study("study.weekly-used", "| limits.weekly.used | integer | interviews used this week (Monday to Sunday, UTC) |"),
  study("study.created-at", "| created_at | string | |"),
  study("study.detail-only", "Detail-only fields (single-study retrieval only): `research_goal` (string, research objective), `product_name` (string), `questions` (array of `{text: string}`)"),
  study("study.interview-count", "`interview_count` (integer, total completed interviews)"),

  interview("interview.id", "| id | string (UUID) | |"),
  interview("interview.object", "| object | string | `interview` |"),
  interview("interview.study-id", "| study_id | string (UUID) | owning study |"),
  interview("interview.status", "| status | string | `completed`, `started`, `processing` |"),
  interview("interview.reference-id", "| reference_id | string | the value passed as `reference_id` on the interview link |"),
  interview("interview.respondent-email", "| respondent_email | string or null | `null` if not collected |"),
  interview("interview.language", "| language | string | detected language code |"),
  interview("interview.quality-score", "| quality_score | string | `insightful`, `successful`, `unsuccessful` |"),
  interview("interview.duration", "| duration_secs | integer | interview length in seconds |"),
  interview("interview.headline", "| headline | string | AI-generated one-line summary |"),
  interview("interview.summary", "| summary | string | AI-generated paragraph summary |"),
  interview("interview.started-at", "| started_at | string | |"),
  interview("interview.completed-at", "| completed_at | string | |"),
  interview("interview.created-at", "| created_at | string | record creation |"),
  interview("interview.detail-only", "Detail-only fields (single-interview retrieval only):"),
  interview("interview.transcript", "`transcript`: array in chronological order; each entry has `role` (`agent` or `user`), `message` (string, original language)"),
  interview("interview.translated", "`translated` (string, English translation, present only for non-English interviews)"),
  interview("interview.time-in-call", "`time_in_call_secs` (integer, seconds into the interview)"),
  interview("interview.question-answers", "`question_answers`: array, one per interview question"),
  interview("interview.question-index", "`question_index` (integer, 0-based), `question_text` (string), `answer_summary` (string), `answer_excerpt` (array of `{role, message}` transcript excerpts)"),

  release("release.id", "| id | string (UUID) | |"),
  release("release.object", "| object | string | `release` |"),
  release("release.status", "| status | string | `active`, `dismissed` |"),
  release("release.chat-id", "| chat_id | string (UUID) | linked chat |"),
  release("release.pr-number", "| vcs_pr_number | integer | pull request number |"),
  release("release.pr-title", "| vcs_pr_title | string | |"),
  release("release.pr-description", "| vcs_pr_description | string | detail-only (single-release retrieval) |"),
  release("release.pr-url", "| vcs_pr_url | string (URL) | |"),
  release("release.pr-author", "| vcs_pr_author | string | author handle |"),
  release("release.merged-at", "| merged_at | string | when the pull request was merged |"),
  release("release.last-analysis", "| last_analysis_at | string or null | last analysis run; `null` if none yet |"),
  release("release.created-at", "| created_at | string | release record creation |"),

  chat("chat.id", "| id | string (UUID) | |"),
  chat("chat.object", "| object | string | `chat` |"),
  chat("chat.title", "| title | string or null | `null` if not titled |"),
  chat("chat.source", "| source | string or null | origin; example values `web`, `analyst`, `mcp`"),
  chat("chat.internal-sources", "internal-only sources (`eval`, `releases`) are never returned"),
  chat("chat.is-streaming", "| is_streaming | boolean or null | a response is currently streaming |"),
  chat("chat.message-count", "| message_count | integer | visible messages only; present only on single-chat retrieval |"),
  chat("chat.created-at", "| created_at | string | |"),
  chat("chat.updated-at", "| updated_at | string | most recent update |"),
  chat("chat.visible-only", "Only customer-visible chats are exposed: internal, evaluation and release-generated chats are excluded everywhere in this API."),
  chat("chat.no-bodies", "Message bodies are not part of the chat object."),

  message("message.id", "| id | string (UUID) | |"),
  message("message.object", "| object | string | `message` |"),
  message("message.chat-id", "| chat_id | string (UUID) | parent chat |"),
  message("message.role", "| role | string | `user`, `assistant`, `system` (`system` is rare) |"),
  message("message.parts", "| parts | object[] | ordered content blocks, see part types |"),
  message("message.sources", "| sources | object[] or null | citations of an assistant message; `null` when none |"),
  message("message.feedback", "| feedback | string or null | `positive`, `negative`, `null` (user thumbs up/down) |"),
  message("message.usage", "| usage | object or null | assistant messages only; `null` on user/system messages or when not recorded |"),
  message("message.created-at", "| created_at | string | when recorded |"),
  message("message.completed-at", "| completed_at | string or null | when streaming finished; `null` while streaming |"),
  message("source.fields", "Source entry: `id` (string), `description` (string), `rows` (integer or null, row count when available), `query` (string or null; `null` when absent or truncated)"),
  message("source.markers", "`truncated` (boolean; present and `true` only when `query` was nulled for size), `truncation_reason` (string; present alongside `truncated`; currently always `size_limit_32kb`)"),
  message("usage.fields", "Usage: `input_tokens`, `output_tokens`, `cache_read_input_tokens`, `cache_creation_input_tokens` (each integer or null), `cost_usd` (number or null, US dollars)."),
  message("part.discriminated", "Part types (discriminated by `type`):"),
  message("part.text", "| text | `text` (string) |"),
  message("part.thinking", "| thinking | `thinking` (string); internal reasoning shown collapsed |"),
  message("part.redacted-thinking", "| redacted_thinking | no other fields; marker for redacted reasoning |"),
  message("part.file", "| file | `url` (string), `media_type` (string), `filename` (string or null; `null` if none given); user-uploaded attachment |"),
  message("part.tool-use", "| tool_use | `id` (string), `name` (string), `summary` (string), `input` (object, tool-specific), `state` (string) |"),
  message("part.tool-result", "| tool_result | `tool_use_id` (string, references a prior tool_use), `content` (tool-specific), `is_error` (boolean) |"),
  message("part.tool-state", "`tool_use.state` is one of `input_available`, `output_available`, `output_error`, `output_denied`"),
  message("part.transient-states", "transient internal lifecycle states (streaming input, approval requests) are reported as `input_available`"),
  message("part.transports", "All tool transports (server tools, MCP tools, web search, code execution) are normalized to the single `tool_use` / `tool_result` shapes."),
  message("part.internal-hidden", "Internal runtime parts (compaction, container uploads, hidden branches) and internal metadata (session ids, model names, branching info) are never returned."),
  message("part.tool-specific", "The shapes inside `tool_use.input` and `tool_result.content` are tool-specific and may change; clients read them defensively.", unobservable("a permission to change shapes and advice to clients; a tool-specific shape cannot be wrong")),
  message("part.stable", "Everything else is stable.", unobservable("stability across releases of the service cannot be seen in one run; within one run, response.body holds every non-tool-specific field to its type")),
  message("truncation.rule", "when a `tool_use.input`, a `tool_result.content` or a `sources[].query` exceeds 32 KB of JSON-encoded UTF-8, the oversized value is replaced by `null` and the object gains `truncated: true` and `truncation_reason: size_limit_32kb`"),
  message("truncation.siblings", "(for a tool_result: `content` null, `is_error` unchanged; for a source: `query` null, and `rows` may be null)"),
  message("truncation.not-retrievable", "The full content is not retrievable.", unobservable("no endpoint returns stored payloads, so there is nothing to probe; the truncation rules show the value is nulled on every read")),
  message("truncation.clients", "Clients test `truncated === true` rather than a fixed size, since the threshold may change.", unobservable("advice to clients")),

  webhook("webhook-config.url", "| url | string | HTTPS endpoint |"),
  webhook("webhook-config.events", "| events | string[] | currently only `interview.completed` |"),
  webhook("webhook-config.secret", "| signing_secret | string | returned only in the creation response |"),
  webhook("webhook-config.one", "One webhook per project."),

  metrics("metrics.definition", "A success metric is a measurable outcome an experiment tries to change. Four types exist.", overview("the four formula rows")),
  metrics("metrics.zero-filled", "For all four the denominator is the total number of exposed users; users who never fired the event count as 0 (intent-to-treat, zero-filled)."),
  metrics("metrics.conversion", "| Conversion | did the user fire the event at least once | users_who_triggered / users_exposed |"),
  metrics("metrics.events-per-user", "| Events per user | how many events per user | sum of events over all users / users_exposed |"),
  metrics("metrics.per-active-day", "| Events per user per active day | intensity when engaged | sum over users of (events / active days) / users_exposed |"),
  metrics("metrics.retention", "| Retention | did the user clear a threshold within a window | users_meeting_threshold / users_exposed |"),
  metrics("metrics.conversion-volume", "Conversion ignores volume (ten firings count as one)."),
  metrics("metrics.mean-over-exposed", "Events per user is a mean over everyone exposed, including non-participants."),
  metrics("metrics.configuration", "Configuration fields of a success metric (event name, threshold and window of retention, active-day definition, how results are produced and returned): not shown.", open("our contract pins them in the metrics package (rule metrics.pinned-rules)")),
  metrics("metrics.attribution", "Client-library attribution fields, server-provided and optional", mobile("carrying launchRuleId, experimentId and audienceId")),

  states("states.study", "| Study | status | `active`, `paused`, `draft` |"),
  states("states.interview", "| Interview | status | `started`, `processing`, `completed` |"),
  states("states.release", "| Release | status | `active`, `dismissed` |"),
  states("states.tool-use", "| Message tool_use | state | `input_available`, `output_available`, `output_error`, `output_denied` |"),
  states("transitions.study", "Study transitions: not shown.", open("no study transition is stated")),
  states("transitions.interview", "Interview transitions: not shown"),
  states("transitions.release", "Release transitions: not shown.", open("no release transition is stated")),
  states("transitions.tool-call", "Tool call state transitions: not shown.", open("no tool call transition is stated")),
  states("states.accepting", "Derived rule: a study's `accepting_responses` is `true` when its status is `active` and it is within all usage limits."),
  states("invite.event", "| no invite | analytics event matching a cached trigger rule |", mobile("the invite lifecycle")),
  states("invite.audience", "| no invite | synced audience match |", mobile("the invite lifecycle")),
  states("invite.webview", "| pending invite | startPendingInvite | server returns webview |", mobile("the invite lifecycle")),
  states("invite.external", "| pending invite | startPendingInvite | server returns external_browser |", mobile("the invite lifecycle")),
  states("invite.expired", "| pending invite | startPendingInvite | signed launch expired |", mobile("the invite lifecycle")),
  states("invite.declined", "| pending invite | startPendingInvite | server declines |", mobile("the invite lifecycle")),
  states("invite.dismiss", "| pending invite | dismissPendingInvite |", mobile("the invite lifecycle")),
  states("invite.set-user", "| any | setUser (new identity) |", mobile("the invite lifecycle")),
  states("invite.handle-link", "| no invite | handleLink with a valid invite link |", mobile("the invite lifecycle")),

  endpoints("endpoints.authorization", "All endpoints except the participant endpoints require the `Authorization` header"),
  endpoints("endpoints.uuid-paths", "Paths with `:id` take a UUID."),
  endpoints("endpoints.limit", "List endpoints take `limit` (integer, default 20, min 1, max 100)"),
  endpoints("endpoints.starting-after", "`starting_after` (string, the `id` of the last item of the previous page); response is the list envelope."),
  endpoints("endpoints.next-page", "When `has_more` is `true`, request the next page with `starting_after` set to the last item's `id`."),
  endpoints("endpoints.list-studies", "| GET | /v1/studies | `limit`, `starting_after` | list of Study (list fields only); active studies of the project |"),
  endpoints("endpoints.get-study", "| GET | /v1/studies/:id | | Study with detail-only fields; 404 if absent or not in the project |"),
  endpoints("endpoints.list-interviews", "| GET | /v1/interviews | `study_id` (UUID, restricts to the study), `status` (string; common values `completed`, `started`), `reference_id` (string), `quality_score` (`insightful`, `successful`, `unsuccessful`), `limit`, `starting_after` | list of Interview (list fields) |"),
  endpoints("endpoints.get-interview", "| GET | /v1/interviews/:id | | Interview with `transcript` and `question_answers`; 404 if absent or not in the project |"),
  endpoints("endpoints.list-releases", "| GET | /v1/releases | `status` (`active` or `dismissed`), `limit`, `starting_after` | list of Release, newest `merged_at` first |"),
  endpoints("endpoints.get-release", "| GET | /v1/releases/:id | | Release with `vcs_pr_description`; 404 if absent or not in the project |"),
  endpoints("endpoints.list-chats", "| GET | /v1/chats | `limit`, `starting_after` | list of Chat, descending `created_at` (newest first)"),
  endpoints("endpoints.chats-stable", "pagination is by `created_at` so traversal stays stable while chats receive messages; no `message_count` |"),
  endpoints("endpoints.get-chat", "| GET | /v1/chats/:id | | Chat with `message_count`; 404 if absent, not in the project, or excluded |"),
  endpoints("endpoints.list-messages", "| GET | /v1/chats/:id/messages | `limit`, `starting_after` (message id) | list of Message, chronological, oldest first |"),
  endpoints("endpoints.put-webhook", "| PUT | /v1/webhooks | JSON body: `url` (string, required, HTTPS), `events` (string[], required) | 201 with `{url, events, signing_secret}` on first creation; 200 with `{url, events}` on update |"),
  endpoints("endpoints.get-webhook", "| GET | /v1/webhooks | | `{url, events}` (never the secret); 404 if none configured |"),
  endpoints("endpoints.delete-webhook", "| DELETE | /v1/webhooks | | 204, empty body |"),
  endpoints("endpoints.experiments", "| GET | /v1/experiments | | deprecated: project-level usage and per-experiment interview stats for all active experiments; responses carry `Deprecation` and `Sunset` headers |"),
  endpoints("endpoints.order-open", "Ordering: studies and interviews list order: not shown.", open("our contract pins newest created_at first, ties by id (rule pagination.pinned-order)")),
  endpoints("endpoints.order", "Releases and chats newest first; messages oldest first."),
  endpoints("endpoints.study-id-optional", "Whether `study_id` is mandatory on the interview list: not shown", open("our contract makes it optional; a target that refuses the list without it (a 400) while it answers the list of a study is walked study by study (Http.needsStudyId), and test/conformance/foreign-allowed.test.ts runs such a copy of ../shared/foreign")),
  endpoints("endpoints.messages-validation", "`GET /v1/chats/:id/messages` validation: `limit` outside 1..100 or a `starting_after` that is not a UUID gives 400 (see Errors)."),
  endpoints("endpoints.messages-unknown-cursor", "A `starting_after` UUID that is not a visible message of that chat gives 400."),
  endpoints("endpoints.interview-id", "The interview `:id` equals the `interview_id` of the webhook payload."),
  endpoints("endpoints.cache-studies", "Study capacity changes rarely; callers may cache the study list for a few minutes.", unobservable("advice to callers; the service may change capacity at any time")),

  participant("participant.paths", "Paths, relative to `{base_url}`:"),
  participant("participant.config", "| GET | /v1/interview-participant/config | returns server-controlled trigger rules, with a time-to-live the client caches for |"),
  participant("participant.launches", "| POST | /v1/interview-participant/launches | returns a launch decision object whose mode is `webview`, `external_browser` or `not_eligible`; called when the user accepts a prompt |"),
  participant("participant.prompt-events", "| POST | /v1/interview-participant/prompt-events | records invite prompt funnel phases for server-side analytics |"),
  participant("participant.fields-open", "Request and response field lists of these three endpoints: not shown.", open("our contract pins them (rules participant.config, participant.launch, participant.prompt-events)")),

  library("library.package", "Package `@service/interviews-react-native`", mobile("the package's contents")),
  library("library.create-client", "| createInterviewClient |", mobile("createInterviewClient")),
  library("library.set-user", "| setUser |", mobile("setUser")),
  library("library.wrap-track", "| wrapTrackClient |", mobile("wrapTrackClient")),
  library("library.track", "| track (client method) |", mobile("track")),
  library("library.use-interviews", "| useInterviews |", mobile("useInterviews")),
  library("library.start", "| startPendingInvite |", mobile("startPendingInvite")),
  library("library.dismiss", "| dismissPendingInvite |", mobile("dismissPendingInvite")),
  library("library.handle-link", "| handleLink |", mobile("handleLink")),
  library("library.host", "| InterviewHost (component) |", mobile("InterviewHost")),
  library("library.caching", "The client does not contact the service for every analytics event", mobile("trigger caching and local filtering")),

  auth("auth.bearer", "1. Every request to the REST API carries header `Authorization: Bearer <API_KEY>`."),
  auth("auth.key-prefix", "The key starts with the fixed prefix `svc_live_`"),
  auth("auth.key-created", "A project API key is created in the product UI (Settings, API tab, Create Key, enter a name).", unobservable("keys are created in the product UI, shown once and never retrievable; no endpoint lists or returns keys")),
  auth("auth.scope", "3. A key is scoped to a single project."),
  auth("auth.401", "4. When the key is missing or invalid, every endpoint returns 401."),
  auth("auth.webhook-delete", "5. Webhook deletion requires only the API key; a lost signing secret is replaced by deleting the webhook and creating a new one."),
  auth("auth.signed-deliveries", "6. Webhook deliveries are authenticated by signature (see Events)."),
  auth("auth.public-key", "7. The mobile client library uses a separate public SDK key, created under Settings, API Keys; it is limited to loading interview triggers and launching eligible in-app interviews."),
  auth("auth.public-key-transport", "8. How the public SDK key is transmitted to the participant endpoints: not shown.", open("our contract pins the X-Public-Key header (rule auth.public-key)")),
  auth("auth.key-management", "9. Revocation, listing or rotation of API keys through the API: not shown.", open("no key-management endpoint is stated")),

  events("events.only-interview", "The only server-sent event is the webhook `interview.completed`. No other event types are sent; chats, releases and studies emit none."),
  events("events.emitted-by", "Emitted by: an interview finishing processing, typically 5 to 30 seconds after the respondent finishes."),
  events("events.sent-to", "Sent to: the URL set by `PUT /v1/webhooks`, only if `interview.completed` is in `events`."),
  events("events.method", "Method: HTTP POST with a JSON body."),
  events("events.content-type", "| Content-Type | `application/json` |"),
  events("events.event-header", "| X-Webhook-Event | `interview.completed` |"),
  events("events.signature", "| X-Webhook-Signature | `sha256=` followed by the lowercase hex HMAC-SHA256 of the exact raw request body, keyed with the webhook `signing_secret` |"),
  events("events.verify", "Receivers verify by recomputing the value over the raw body and comparing with a timing-safe comparison; a mismatch should be rejected (the usual response is 401)."),
  events("payload.event", "| event | string | `interview.completed` |"),
  events("payload.timestamp", "| timestamp | string | when the event was sent |"),
  events("payload.interview-id", "| data.interview_id | string (UUID) | fetch the transcript with `GET /v1/interviews/:id` |"),
  events("payload.study-id", "| data.study_id | string or null | matches study `id` |"),
  events("payload.study-name", "| data.study_name | string or null | |"),
  events("payload.session-id", "| data.session_id | string | deprecated alias of `interview_id` |"),
  events("payload.experiment-id", "| data.experiment_id | string or null | deprecated alias of `study_id` |"),
  events("payload.experiment-name", "| data.experiment_name | string or null | deprecated alias of `study_name` |"),
  events("payload.interview-link", "| data.interview_link | string or null | public interview URL |"),
  events("payload.status", "| data.status | string | `completed` |"),
  events("payload.started-at", "| data.started_at | string | |"),
  events("payload.completed-at", "| data.completed_at | string or null | |"),
  events("payload.duration", "| data.duration_secs | integer or null | |"),
  events("payload.quality-score", "| data.quality_score | string or null | `insightful`, `successful`, `unsuccessful` |"),
  events("payload.language", "| data.language | string or null | detected language code |"),
  events("payload.reference-id", "| data.reference_id | string or null | value of the `reference_id` query parameter on the interview link |"),
  events("payload.respondent-email", "| data.respondent_email | string or null | `null` if not collected |"),
  events("payload.respondent-id", "| data.respondent_id | string or null | set when triggered via a respondent-specific link |"),
  events("delivery.timeout", "1. The receiver must answer with a 2xx status within 10 seconds."),
  events("delivery.retries", "2. On a non-2xx answer or a timeout, delivery is retried up to 3 times: 1st retry after 10 seconds, 2nd after 1 minute, 3rd after 5 minutes."),
  events("delivery.dropped", "3. After the retries are exhausted, the event is dropped."),
  events("delivery.duplicates", "4. The same event can arrive more than once; receivers de-duplicate on `session_id`."),
  events("events.callbacks", "Client-library callbacks (`onLoaded`, `onStarted`, `onCompleted`, `onAbandoned`, `onClosed`, `onError`) are local callbacks, not server events.", mobile("the local callbacks")),

  errors("errors.200", "| 200 | success |"),
  errors("errors.201", "| 201 | resource created (webhook first creation) |"),
  errors("errors.204", "| 204 | deleted (webhook) |"),
  errors("errors.400", "| 400 | invalid request body or parameters |"),
  errors("errors.401", "| 401 | missing or invalid API key (all endpoints) |"),
  errors("errors.404", "| 404 | resource not found |"),
  errors("errors.retrieval-404", "1. A single-resource retrieval returns 404 when the id does not exist or belongs to another project."),
  errors("errors.hidden-chat-404", "2. Chat endpoints (`/v1/chats/:id`, `/v1/chats/:id/messages`) also return 404 when the chat is internal, evaluation or release-generated."),
  errors("errors.webhook-404", "3. `GET /v1/webhooks` returns 404 when no webhook is configured."),
  errors("errors.invalid-parameters", "4. `GET /v1/chats/:id/messages` returns 400 with message `Invalid parameters` when `limit` is outside 1..100 or `starting_after` is not a UUID; the body includes a `details` array with one validation issue per offending field."),
  errors("errors.no-such-message", "5. `GET /v1/chats/:id/messages` returns 400 with message `No such message: <id>` when `starting_after` is a UUID but not a visible message of the chat."),
  errors("errors.shape-open", "6. Exact JSON shape of error bodies in general and machine-readable error codes: not shown.", open("our contract pins the envelope (rule response.envelope)")),

  limits("limits.page-size", "| Page size | default 20, maximum 100 | every list endpoint (`limit`) |"),
  limits("limits.payload-cap", "| Payload cap | 32 KB of JSON-encoded UTF-8 | `tool_use.input`, `tool_result.content`, `sources[].query`; beyond it the value is nulled and marked truncated |"),
  limits("limits.receiver-timeout", "| Webhook receiver timeout | 10 seconds | webhook delivery |"),
  limits("limits.retries", "| Webhook retries | 3, after 10 s, 1 min, 5 min | webhook delivery |"),
  limits("limits.one-webhook", "| Webhooks per project | 1 | `PUT /v1/webhooks` |"),
  limits("limits.caps", "| Study interview caps | per-study monthly and weekly `limit`, `null` = unlimited; weekly window Monday to Sunday UTC | reported in `limits`; `accepting_responses` is `false` when exceeded |"),
  limits("limits.subscription", "| Webhook subscription | only `interview.completed` | `events` |"),
  limits("limits.rate-open", "Request rate limits: not shown.", open("no rate limit is stated; the suite never tests one")),

  versioning("versioning.v1", "1. The REST API is versioned by path prefix `/v1`."),
  versioning("versioning.stable", "Everything in responses other than tool-specific payloads is stable and versioned.", unobservable("stability across versions cannot be seen in one run; response.body holds every field to its type")),
  versioning("versioning.tool-payloads", "2. Tool-specific payload shapes (`tool_use.input`, `tool_result.content`) may change without a version change; the truncation threshold may change.", unobservable("a permission to change, not a behaviour")),
  versioning("versioning.deprecated", "3. `GET /v1/experiments` is deprecated: it is removed after July 1, 2026, all its responses carry `Deprecation` and `Sunset` headers, and `GET /v1/studies` replaces it."),
  versioning("versioning.aliases", "4. Webhook fields `session_id`, `experiment_id`, `experiment_name` are deprecated aliases of `interview_id`, `study_id`, `study_name`; both forms are sent."),
  versioning("versioning.participant", "5. The participant endpoints are versioned public endpoints under `/v1`."),
  versioning("versioning.truncated", "6. The full content of truncated parts is not retrievable in this version.", unobservable("no endpoint returns stored payloads; the truncation rules show the value is nulled on every read")),
];

export const statementIds = new Set(statements.map((s) => s.id));
