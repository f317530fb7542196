/** `walkWhileOthersRead`: the sequence's study's interviews and the chat list walked a page at a time while the other project walks its own lists at the same moment: each walk lists its own items once, and never the other's. */
import fc from "fast-check";
import { r } from "../rules.ts";
import type { Model, World } from "../world.ts";
import { Command, type CommandSpec } from "./base.ts";

export class WalkWhileOthersRead extends Command {
  readonly name = "walkWhileOthersRead";
  constructor(readonly limit: number) {
    super();
  }
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    if (!w.other) return;
    const ours = `/v1/interviews?study_id=${m.study!.id}`;
    // Both projects page through lists at once, interleaving their requests: the sequence's study at a small limit,
    // the project-wide lists (which grow with every run) at the seed's default page.
    const [mine, chats, theirs, theirChats] = await Promise.all([
      w.http.walk(ours, this.limit, {}, 1000, false), w.http.walk("/v1/chats", 20, {}, 1000, false),
      w.other.walk("/v1/interviews", 20, {}, 1000, false), w.other.walk("/v1/chats", 20, {}, 1000, false),
    ]);
    const got: string[] = mine.items.map((i: any) => i.id).filter((id: string) => !m.study!.base.before.has(id));
    const twice = got.find((id, k) => got.indexOf(id) !== k);
    const want = [...m.interviews.keys()];
    const missed = want.filter((id) => !got.includes(id));
    w.judge.expect(r["list-walk"], !twice && missed.length === 0, `${ours} walked at limit ${this.limit} while the other project walked its lists ${twice ? `listed ${twice} twice` : `skipped ${missed.join(", ")}`}`, mine.pages[0], { got, want });
    const chatIds: string[] = chats.items.map((c: any) => c.id);
    const hidden = m.chats.filter((c) => !c.visible && chatIds.includes(c.id)).map((c) => c.id);
    const visibleMissing = m.chats.filter((c) => c.visible && !chatIds.includes(c.id)).map((c) => c.id);
    w.judge.expect(r["list-walk"], new Set(chatIds).size === chatIds.length && visibleMissing.length === 0 && hidden.length === 0, `GET /v1/chats walked at limit 20 while the other project walked its lists: ${new Set(chatIds).size !== chatIds.length ? "a chat twice; " : ""}${visibleMissing.length ? `missing ${visibleMissing.join(", ")}; ` : ""}${hidden.length ? `hidden ${hidden.join(", ")}` : ""}`, chats.pages[0]);
    const leaked = [...theirs.items, ...theirChats.items].map((x: any) => x.id).filter((id: string) => m.interviews.has(id) || m.chats.some((c) => c.id === id));
    w.judge.expect(r.isolation, leaked.length === 0, `the other project's walks, made at the same moment as this project's, listed this project's ${leaked.join(", ")}`, theirs.pages[0]);
  }
  override toString = () => `walkWhileOthersRead(limit ${this.limit})`;
}

export const walkWhileOthersRead: CommandSpec = {
  name: "walkWhileOthersRead",
  doc: "the sequence's interviews and the chat list walked a page at a time while the other project walks its own lists at the same moment: every item once, none skipped, the hidden ones never, and none of ours in the other's walks",
  statements: ["endpoints.starting-after", "endpoints.next-page", "list.has-more", "auth.scope", "service.key-scope", "endpoints.list-interviews", "endpoints.list-chats"],
  needs: [],
  weight: 1,
  draw: (o) => (o.withOther ? fc.integer({ min: 1, max: 5 }).map((l) => new WalkWhileOthersRead(l)) : "needs --other-key"),
};
