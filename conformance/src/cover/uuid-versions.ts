/**
 * Ids of every UUID version, every run. The seed's ids are UUIDs, and a UUID is not only version 4: RFC 9562 defines
 * versions 1 to 8, the nil UUID and the max UUID. A service that validates ids with a version-4 pattern (or the
 * versions 1 to 5 of an older library, or a pattern without nil and max) refuses, as "not a UUID", what names nothing:
 * a retrieval answered 400 instead of 404, a messages cursor `Invalid parameters` instead of `No such message: <id>`,
 * the interviews' `study_id` filter refused where one of version 4 is answered. Ids of version 4 alone (every probe
 * before this unit, and every id a service makes with `randomUUID`) cannot show it.
 */
import { randomUUID } from "node:crypto";
import { noSuchMessageVerdicts, messageErrorRules } from "../judge/messages-errors.ts";
import type { CoverEnv, Unit } from "./unit.ts";
import { r } from "./rules.ts";

/** A fresh UUID of each version but 4 (RFC 9562's variant), and the nil and max UUIDs. */
export function uuidsOfEveryVersion(): Array<[string, string]> {
  const ofVersion = (v: number) => {
    const u = randomUUID();
    return `${u.slice(0, 14)}${v.toString(16)}${u.slice(15)}`;
  };
  return [
    ...[1, 3, 5, 6, 7, 8].map((v): [string, string] => [`version ${v}`, ofVersion(v)]),
    ["the nil UUID", "00000000-0000-0000-0000-000000000000"],
    ["the max UUID", "ffffffff-ffff-ffff-ffff-ffffffffffff"],
  ];
}

const RETRIEVALS = ["studies", "interviews", "releases", "chats"] as const;

export const uuidVersions: Unit = {
  name: "uuid-versions",
  doc: "ids of every UUID version (1, 3, 5, 6, 7, 8, nil, max) that name nothing: each resource's retrieval and a chat's messages are 404, a messages cursor is 400 No such message, and the interviews' study_id filter is answered as one of version 4 naming nothing",
  needs: [],
  rules: [r["uuid-versions"], messageErrorRules["no-such-message"]],
  classes: (ctx) => ["retrievals", "a chat's messages", "study_id filter", ...(ctx.states.has("plant-chat") ? ["messages cursor"] : [])],
  async run(env) {
    const { ctx } = env;
    const ids = uuidsOfEveryVersion();
    for (const resource of RETRIEVALS) {
      for (const [version, id] of ids) {
        const reply = await env.req(`/v1/${resource}/${id}`);
        env.expect(r["uuid-versions"], reply.status === 404, `GET /v1/${resource}/${id} (${version}, naming no ${resource.replace(/s$/, "")}) answered ${reply.status}, not 404: it is a UUID that names nothing`, reply);
      }
    }
    env.reach("retrievals", r["uuid-versions"].cites);

    for (const [version, id] of ids) {
      const reply = await env.req(`/v1/chats/${id}/messages`);
      env.expect(r["uuid-versions"], reply.status === 404, `GET /v1/chats/${id}/messages (${version}, naming no chat) answered ${reply.status}, not 404`, reply);
    }
    env.reach("a chat's messages", r["uuid-versions"].cites);

    await studyFilter(env, ids);

    if (ctx.states.has("plant-chat")) {
      const chat = await ctx.states.plantChat({ title: "UUID versions", messages: [{ role: "user", parts: [{ type: "text", text: "one" }] }, { role: "assistant", parts: [{ type: "text", text: "two" }] }] }, env.project);
      for (const [version, id] of ids) {
        const reply = await env.req(`/v1/chats/${chat.id}/messages?starting_after=${id}`);
        for (const [rule, ok, message] of noSuchMessageVerdicts(reply.status, reply.body, id, `a messages cursor of ${version} naming no message (starting_after=${id})`)) env.expect(rule, ok, message, reply);
      }
      env.reach("messages cursor", messageErrorRules["no-such-message"].cites);
    }
  },
};

/**
 * The interviews filtered by a study of nothing: whatever the service answers for one of version 4 (an empty list, or
 * a 404 it may choose), it answers for every other version too; a list holds no interview.
 */
async function studyFilter(env: CoverEnv, ids: Array<[string, string]>): Promise<void> {
  const v4 = randomUUID();
  const base = await env.req(`/v1/interviews?study_id=${v4}`);
  for (const [version, id] of ids) {
    const reply = await env.req(`/v1/interviews?study_id=${id}`);
    const listed = reply.status === 200 ? (reply.body?.data ?? []).length : 0;
    env.expect(r["uuid-versions"], reply.status === base.status && listed === 0, `GET /v1/interviews?study_id=${id} (${version}, naming no study) answered ${reply.status}${listed ? ` listing ${listed}` : ""}, where study_id=${v4} (version 4, naming no study) answered ${base.status}: a study_id of any UUID version is a UUID`, reply);
  }
  env.reach("study_id filter", r["uuid-versions"].cites);
}
