/** `plantChat`: a chat planted of any visibility, null title or source, with visible, hidden-branch and internal-only messages (as the capabilities allow): listed exactly when visible, its messages walked. */
import fc from "fast-check";
import { TOOL_STATES } from "../../judge/shown.ts";
import { r } from "../rules.ts";
import type { Model, ModelChat, World } from "../world.ts";
import type { Capability } from "../../states/capabilities.ts";
import { Command, judgeMessages, type CommandSpec } from "./base.ts";

export type MessageKind = "visible" | "hidden" | "internal";

/** The capability each kind of planted message needs beyond plant-chat. */
export const KIND_NEEDS: Record<MessageKind, Capability[]> = { visible: [], hidden: ["hidden-messages"], internal: ["recorded-parts"] };

const ROLES = ["user", "assistant", "system"] as const;

/** Every public part kind (and every tool state), so a message's kind never decides whether it is visible. */
const PUBLIC_PARTS = [
  (n: number) => ({ type: "text" as const, text: `model message ${n} é日本` }),
  (n: number) => ({ type: "thinking" as const, thinking: `thinking ${n}` }),
  () => ({ type: "redacted_thinking" as const }),
  (n: number) => ({ type: "file" as const, url: `https://files.example.com/${n}.csv`, media_type: "text/csv", filename: n % 2 ? null : `${n}.csv` }),
  (n: number) => ({ type: "tool_use" as const, id: `toolu_${n}`, name: "query", summary: "Query", input: { n }, state: TOOL_STATES[n % 4] }),
  (n: number) => ({ type: "tool_result" as const, tool_use_id: `toolu_${n}`, content: [{ row: n }], is_error: n % 2 === 1 }),
];

export class PlantChat extends Command {
  readonly name = "plantChat";
  constructor(readonly visibility: "visible" | "internal" | "evaluation" | "release", readonly title: string | null, readonly source: string | null, readonly kinds: MessageKind[]) {
    super();
  }
  /** Public so a walk can plant a chat between its pages. */
  override async act(m: Model, w: World) {
    // A title carries the run's id, as every name the run gives; a null title stays null.
    const title = this.title === null ? null : w.ctx.states.name(this.title);
    const messages = this.kinds.map((kind, n) => ({ role: ROLES[n % ROLES.length], parts: kind === "internal" ? [{ type: "compaction" as const, summary: `compacted ${n}` }] : [PUBLIC_PARTS[(n + this.kinds.length) % PUBLIC_PARTS.length](n)], ...(kind === "hidden" ? { hidden: true } : {}) }));
    const planted = await w.ctx.states.plantChat({ title: title, source: this.source, visibility: this.visibility, messages }, w.project);
    const ids = planted.message_ids;
    const chat: ModelChat = {
      id: planted.id, visible: this.visibility === "visible", title: title, source: this.source,
      messages: this.kinds.map((kind, n) => ({ id: ids[n], visible: kind === "visible", internalOnly: kind === "internal" })),
    };
    m.chats.push(chat);
    if (chat.visible) await judgeMessages(w, chat, 100);
    const listed = (await w.http.walk("/v1/chats", 100)).items.filter((c: any) => c.id === chat.id);
    // A visible chat missing from the list because its title or source is null breaks the nullable rule first.
    const nullable = chat.visible && (title === null || this.source === null);
    w.judge.expect(nullable && listed.length === 0 ? r["nullable-listed"] : r["chat-visibility"], listed.length === (chat.visible ? 1 : 0), `a planted ${this.visibility} chat${nullable ? ` with title ${JSON.stringify(title)} and source ${JSON.stringify(this.source)}` : ""} is listed ${listed.length} times, not ${chat.visible ? 1 : 0}`);
    if (chat.visible && listed[0]) {
      w.judge.expect(r["nullable-listed"], listed[0].title === title && listed[0].source === this.source, `the planted chat is listed with title ${JSON.stringify(listed[0].title)} and source ${JSON.stringify(listed[0].source)}, not ${JSON.stringify(title)} and ${JSON.stringify(this.source)}`);
    }
  }
  override toString = () => `plantChat(${this.visibility}, title ${JSON.stringify(this.title)}, source ${JSON.stringify(this.source)}, [${this.kinds.join(", ")}])`;
}

export const plantChat: CommandSpec = {
  name: "plantChat",
  doc: "a chat planted of any visibility, null title or source, with visible, hidden-branch and internal-only messages (as the capabilities allow): listed exactly when visible, its messages walked",
  statements: ["chat.visible-only", "errors.hidden-chat-404", "chat.title", "chat.source", "endpoints.list-chats"],
  needs: ["plant-chat"],
  weight: 2,
  draw: (o) => {
    const kinds = (["visible", "visible", "hidden", "internal"] as MessageKind[]).filter((k) => o.caps.has(...KIND_NEEDS[k]));
    return fc.tuple(fc.constantFrom<"visible" | "internal" | "evaluation" | "release">("visible", "visible", "internal", "evaluation", "release"), fc.constantFrom("Model chat", null), fc.constantFrom("web", "analyst", "mcp", null), fc.array(fc.constantFrom(...kinds), { minLength: 1, maxLength: 5 })).map(([v, t, s, k]) => new PlantChat(v, t, s, k));
  },
};
