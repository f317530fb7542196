/**
 * Every visible field of a chat, every run, read back whole: every example source (`web`, `analyst`, `mcp`), one outside
 * the examples (`slack`) and none,
 * a title (beyond ASCII with markup, empty, padded with a CRLF and a decomposed accent) and none, and where the target plants
 * them, `is_streaming` true, false and null and a creation instant chosen to the millisecond. Each chat's retrieval is predicted whole (`updated_at` aside: not before its created_at), and in
 * a project of the unit's own the list is exactly these chats, newest created_at first, without message_count. One of
 * them has no message at all: still a visible chat, listed, with message_count 0.
 */
import { firstDifference, same } from "../judge/same.ts";
import type { CoverEnv, Unit } from "./unit.ts";
import { r } from "./rules.ts";

// And an origin outside the seed's examples ("example values"): kept as given, never served as null.
const SOURCES = ["web", "analyst", "mcp", null, "slack"] as const;
const STREAMING = [true, false, null, false, true] as const;
/** Titles kept exactly as given: beyond ASCII with markup and quotes, empty, and padded with a CRLF, a decomposed accent and mixed case. */
const TITLES = ["Chat über Exporte 😀 <b>&amp;</b> \"q\"", "", "  Plain\r\nTitle e\u0301 ", null, "From Slack"] as const;
const titleClass = (t: string | null) => (t === null ? "title null" : t === "" ? "title empty" : t.trim() === t ? "title text" : "title padded, CRLF and decomposed");
/** The chat planted without messages. */
const EMPTY = 3;

interface Planted {
  id: string;
  want: Record<string, unknown>;
  cls: string[];
}

async function plant(env: CoverEnv, k: number, fields: boolean, t0: number): Promise<Planted> {
  const source = SOURCES[k];
  const title = TITLES[k];
  // Instants days apart, each at an odd millisecond, oldest first: the list's order is the reverse.
  const created = new Date(t0 - (SOURCES.length - k) * 86_400_000 + 1 + 37 * k).toISOString();
  // The last one holds no message: a chat nobody wrote in yet is still a customer-visible chat.
  const messages = k === EMPTY ? [] : [{ role: "user" as const, parts: [{ type: "text" as const, text: `chat ${k + 1}` }] }];
  const input = { title, source, messages, ...(fields ? { is_streaming: STREAMING[k], created_at: created } : {}) };
  const chat = await env.ctx.states.plantChat(input, env.project);
  const want: Record<string, unknown> = { id: chat.id, object: "chat", title, source, message_count: messages.length, ...(fields ? { is_streaming: STREAMING[k], created_at: created } : {}) };
  const cls = [`source ${source}`, titleClass(title), ...(fields ? [`is_streaming ${STREAMING[k]}`, "created_at chosen"] : [])];
  return { id: chat.id, want, cls };
}

/** What of a chat read is predicted: all but updated_at (judged apart), and is_streaming and created_at only where planted. */
function predicted(c: Record<string, unknown>, fields: boolean): Record<string, unknown> {
  return Object.fromEntries(Object.keys(c).filter((f) => f !== "updated_at" && (fields || (f !== "is_streaming" && f !== "created_at"))).map((f) => [f, c[f]]));
}

export const chats: Unit = {
  name: "chats",
  doc: "every example source, one outside the examples and none, a title and none, is_streaming true, false and null, a chosen creation instant, no messages at all: each chat read back whole (message_count 0 for the empty one, listed all the same), the list exactly them, newest first, without message_count",
  needs: ["plant-chat"],
  rules: [r["chat-whole"]],
  classes: (ctx) => [...new Set([...SOURCES.map((s) => `source ${s}`), ...TITLES.map(titleClass), "no messages", ...(ctx.states.has("chat-fields") ? ["is_streaming true", "is_streaming false", "is_streaming null", "created_at chosen"] : [])])],
  async run(env) {
    const fields = env.ctx.states.has("chat-fields");
    const t0 = Date.now();
    const planted = await Promise.all(SOURCES.map((_, k) => plant(env, k, fields, t0)));
    const reads = new Map<string, any>();
    for (const p of planted) {
      const read = await env.req(`/v1/chats/${p.id}`);
      const got = read.body ?? {};
      reads.set(p.id, got);
      const differs = read.status === 200 ? firstDifference(predicted(got, fields), p.want) : `answered ${read.status}`;
      env.expect(r["chat-whole"], !differs, `a chat planted with ${p.cls.join(", ")} reads differently than planted: ${differs}`, read, { got });
      env.expect(r["chat-whole"], typeof got.updated_at === "string" && Date.parse(got.updated_at) >= Date.parse(got.created_at), `a chat's updated_at ${JSON.stringify(got.updated_at)} is not an instant at or after its created_at ${got.created_at}`, read);
      if (!differs) for (const cls of p.cls) env.reach(cls, r["chat-whole"].cites);
    }
    const walk = await env.http.walk("/v1/chats", 100);
    const listed: any[] = walk.items;
    const empty = planted[EMPTY];
    const found = listed.filter((c) => c?.id === empty.id).length;
    env.expect(r["chat-whole"], found === 1, `a visible chat planted with no messages is listed ${found} times in GET /v1/chats, not once`, walk.pages[0]);
    if (found === 1) env.reach("no messages", r["chat-whole"].cites);
    if (!env.own) return;
    const order = fields ? [...planted].reverse().map((p) => p.id) : [...listed.map((c) => c.id)].filter((id) => planted.some((p) => p.id === id));
    env.expect(r["chat-whole"], JSON.stringify(listed.map((c) => c.id)) === JSON.stringify(order) && listed.length === planted.length, `GET /v1/chats in a project holding only the unit's ${planted.length} chats lists ${JSON.stringify(listed.map((c) => c.id))}, not ${JSON.stringify(order)} (newest created_at first)`, walk.pages[0]);
    for (const c of listed) {
      const p = planted.find((x) => x.id === c.id);
      if (!p) continue;
      const { message_count: _, ...listWant } = p.want;
      const differs = firstDifference(predicted(c, fields), listWant);
      env.expect(r["chat-whole"], !differs, `the listed chat planted with ${p.cls.join(", ")} differs from what was planted: ${differs}`, walk.pages[0], { got: c });
      // Nothing happened to it since its retrieval: the list reads its updated_at (what the plant does not fix) as that did.
      const read = reads.get(c.id);
      env.expect(r["chat-whole"], same(c.updated_at, read?.updated_at, "updated_at"), `the listed chat planted with ${p.cls.join(", ")} reads updated_at ${JSON.stringify(c.updated_at)}, where its retrieval, with nothing changed since, read ${JSON.stringify(read?.updated_at)}`, walk.pages[0], { got: c });
    }
  },
};
