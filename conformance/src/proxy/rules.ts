/**
 * The proxy's own rules: what only traffic seen over time can show of an implementation (across exchanges), and what
 * a client does wrong. Single-exchange rules are the suite's own (contract.ts, judge/, checks' rules), never copied.
 */
import { contract, rules, seed } from "../rules.ts";

/** Judged across exchanges: the implementation's. */
export const acrossRules = rules("proxy", {
  "stays-found": seed("Errors 1: a single-resource retrieval returns 404 when the id does not exist or belongs to another project", "an id that answered 200 under a key answers 200 again under that key: no resource of the API can be deleted", ["errors.retrieval-404", "errors.404"]),
  immutable: seed("Resources and their fields: ids, created_at; Interview: created_at, completed_at; Message: chat_id, role", "a resource's id, object, created_at (and an interview's study_id, a message's chat_id and role, a completed interview's completed_at, started_at, reference_id, respondent_email, language, quality_score, duration_secs, headline and summary) never change between reads", ["resources.ids", "study.created-at", "interview.created-at", "interview.study-id", "interview.completed-at", "interview.reference-id", "interview.respondent-email", "interview.language", "interview.quality-score", "interview.duration", "interview.started-at", "interview.headline", "interview.summary", "release.created-at", "chat.created-at", "message.created-at", "message.chat-id"]),
  isolation: seed("Authentication 3: a key is scoped to a single project; Errors 1", "keys that read the same resource are one project's: a resource one of them reads is never 404 to the other; and keys shown to be of two projects (one's whole walk of a list that never loses items lacks an item the other's earlier whole walk listed) never both read one resource", ["auth.scope", "service.key-scope", "errors.retrieval-404"]),
  "walk-once": seed("Endpoints: limit and starting_after; List envelope", "a walk page by page lists no item twice and skips no item that the list holds between the pages' ends (ordered lists: chats, releases, messages)", ["endpoints.starting-after", "endpoints.next-page", "list.data", "endpoints.chats-stable"]),
  "walk-order": seed("Endpoints: releases and chats newest first, messages oldest first", "the order holds across a walk's pages, not only within each", ["endpoints.order", "endpoints.list-releases", "endpoints.list-chats", "endpoints.list-messages"]),
  listed: seed("Endpoints: GET /v1/interviews, /v1/releases, /v1/chats list the project's items", "an interview, release or chat a key retrieved (200) is in that key's whole walk of the unfiltered list made after it, and an interview in a whole walk of the interviews filtered by its study_id, its reference_id, or (once read completed) status=completed and its quality_score", ["endpoints.list-interviews", "endpoints.list-releases", "endpoints.list-chats", "auth.scope"]),
  "cursor-kept": seed("Endpoints: starting_after, the id of the last item of the previous page; Errors 5: 400 only when starting_after is not a visible message of the chat", "an item's id a key saw in a list that never loses items (a chat's messages; releases and chats; interviews unfiltered, by study_id or by reference_id) is a cursor that list takes: never answered 400 or 404 (a message: one a later page lists again, so it was visible before the refusal and after it)", ["endpoints.starting-after", "endpoints.next-page", "endpoints.messages-unknown-cursor", "errors.no-such-message"]),
  "count-agrees": seed("Chat: message_count, visible messages only", "a chat's message_count equals the messages a whole walk of its list returns (when no message is newer than the count)", ["chat.message-count"]),
  "page-size": seed("Endpoints: limit (default 20, max 100); List envelope: has_more", "a page holds at most `limit` items (20 without it); a page with has_more true is full", ["endpoints.limit", "limits.page-size", "list.has-more"]),
  "auth-first": seed("Authentication 4: when the key is missing or invalid, every endpoint returns 401", "a request with no key, or a key without the svc_live_ prefix, answers 401", ["auth.401", "auth.key-prefix", "errors.401"]),
  answers: contract("HTTP", "the target answers every request: no refused, reset or stalled connection (the proxy answers the client 502 for it)"),
  "relay-signature": seed("Events: X-Webhook-Signature", "a delivery relayed through the proxy is signed with a signing secret the service issued (seen in a PUT /v1/webhooks that passed through)", ["events.signature", "auth.signed-deliveries"]),
});

/** Judged on the client: what it sent, and how it walked and retried. Never counted against the implementation. */
export const clientRules = rules("client", {
  "invalid-request": contract("the contract's parameters and bodies", "the client sends parameters and bodies the contract allows (limit 1..100, UUID ids and cursors, enums, required fields)"),
  "unknown-parameter": contract("the contract's parameters", "the client sends no query parameter the operation does not declare (a typo such as studyId is silently a different request)"),
  "no-key": contract("Authentication 1", "every request to the REST API carries Authorization: Bearer <API_KEY>"),
  "has-more": contract("List envelope: has_more", "a walk stops when has_more is false: it never asks for the page after the last"),
  "retry-after": contract("Retry-After (RFC 9110)", "after a 429 or 503 with Retry-After, the client waits that long before it sends the same request again"),
  "receiver-timeout": contract("Events: delivery rule 1", "the client's webhook receiver answers within 10 seconds"),
  "receiver-status": contract("Events: delivery rule 1", "the client's webhook receiver answers a delivery with a 2xx when the signature verifies"),
});
