/**
 * Which replies can be evidence for a statement, when a rule that is judged on every reply (the contract's response
 * rules: body, empty 204, detail-only fields) holds on one. A statement about one endpoint is shown only by that
 * endpoint's replies, one about a resource's fields only by the replies that carry that resource: an empty 204 from
 * the participant endpoints says nothing about `DELETE /v1/webhooks`. Statements about every reply (JSON, ids,
 * timestamps, no 5xx) are shown by any.
 */

const LISTS = ["listStudies", "listInterviews", "listReleases", "listChats", "listChatMessages"];

/** Statement ids (exact, or a prefix ending in ".") and the operations whose replies show them; the first match wins. */
const SCOPES: Array<[string, string[]]> = [
  ["endpoints.list-studies", ["listStudies"]],
  ["endpoints.get-study", ["getStudy"]],
  ["endpoints.list-interviews", ["listInterviews"]],
  ["endpoints.get-interview", ["getInterview"]],
  ["endpoints.list-releases", ["listReleases"]],
  ["endpoints.get-release", ["getRelease"]],
  ["endpoints.list-chats", ["listChats"]],
  ["endpoints.get-chat", ["getChat"]],
  ["endpoints.list-messages", ["listChatMessages"]],
  ["endpoints.put-webhook", ["putWebhook"]],
  ["endpoints.get-webhook", ["getWebhook"]],
  ["endpoints.delete-webhook", ["deleteWebhook"]],
  ["endpoints.experiments", ["listExperiments"]],
  ["study.", ["getStudy", "listStudies"]],
  ["states.study", ["getStudy", "listStudies"]],
  ["service.study-link", ["getStudy", "listStudies"]],
  ["interview.", ["getInterview", "listInterviews"]],
  ["states.interview", ["getInterview", "listInterviews"]],
  ["release.", ["getRelease", "listReleases"]],
  ["states.release", ["getRelease", "listReleases"]],
  ["chat.", ["getChat", "listChats"]],
  ["message.", ["listChatMessages"]],
  ["source.", ["listChatMessages"]],
  ["usage.", ["listChatMessages"]],
  ["part.", ["listChatMessages"]],
  ["states.tool-use", ["listChatMessages"]],
  ["list.", LISTS],
];

/** The operations whose replies can show `statement`, or null when any reply can. */
export function operationsShowing(statement: string): string[] | null {
  const hit = SCOPES.find(([id]) => (id.endsWith(".") ? statement.startsWith(id) : statement === id));
  return hit ? hit[1] : null;
}

/** Of the statements a rule cites, those a reply of `operationId` (undefined: an unknown route) can show. */
export function statementsShownBy(cites: string[], operationId: string | undefined): string[] {
  return cites.filter((s) => {
    const ops = operationsShowing(s);
    return ops === null || (operationId !== undefined && ops.includes(operationId));
  });
}
