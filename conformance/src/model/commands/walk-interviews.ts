/** `walkInterviews`: the study's interviews walked at limit 1 to 3, with or without status=started, while one is started and one completed between pages. */
import fc from "fast-check";
import { completeNow, start } from "../interview-steps.ts";
import { r } from "../rules.ts";
import type { Model, World } from "../world.ts";
import { Command, awaitDelivery, openInterviews, type CommandSpec } from "./base.ts";

/**
 * The study's interviews walked a page at a time while the sequence changes them between pages (one started, one
 * completed): no interview is listed twice, and every one that was in the list throughout (same status) is listed.
 */
export class WalkInterviews extends Command {
  readonly name = "walkInterviews";
  constructor(readonly status: "started" | null, readonly limit: number) {
    super();
  }
  override check = (m: Readonly<Model>) => m.study !== null && m.interviews.size > 0;
  protected async act(m: Model, w: World) {
    const query = `/v1/interviews?study_id=${m.study!.id}${this.status ? `&status=${this.status}` : ""}&limit=${this.limit}`;
    const inList = (i: { status: string }) => this.status === null || i.status === this.status;
    const before = new Set([...m.interviews].filter(([, i]) => inList(i)).map(([id]) => id));
    const seen: string[] = [];
    let after: string | undefined;
    for (let page = 0; page < 200; page++) {
      const reply = await w.http.req(`${query}${after ? `&starting_after=${after}` : ""}`);
      w.judge.conforms(reply, `GET ${query}`);
      if (reply.status !== 200 || !Array.isArray(reply.body?.data)) {
        w.judge.expect(r["list-walk"], false, `page ${page + 1} of ${query} answered ${reply.status}`, reply);
        return;
      }
      seen.push(...reply.body.data.map((x: any) => x.id));
      // Between pages: a new interview, and a completion (which moves one out of status=started).
      if (page === 0) await start(m, w, false);
      if (page === 1) {
        // Not one on this page: the next page's cursor must stay in the list (a cursor that left a filtered list is a
        // question the seed leaves open).
        const onPage = new Set(reply.body.data.map((x: any) => x.id));
        const candidates = openInterviews(m).filter(([id]) => !onPage.has(id));
        const open = candidates.find(([id]) => !before.has(id)) ?? candidates[0];
        if (open) {
          await completeNow(m, w, open[0]);
          if (m.expected.has(open[0])) await awaitDelivery(m, w, open[0], this.toString());
        }
      }
      if (!reply.body.has_more || reply.body.data.length === 0) break;
      after = reply.body.data[reply.body.data.length - 1].id;
    }
    const mine = seen.filter((id) => m.interviews.has(id));
    const twice = mine.find((id, k) => mine.indexOf(id) !== k);
    w.judge.expect(r["list-walk"], !twice, `${query} walked while interviews changed between pages listed ${twice} twice`, undefined, { seen: mine });
    const throughout = [...before].filter((id) => inList(m.interviews.get(id)!));
    const missed = throughout.filter((id) => !mine.includes(id));
    w.judge.expect(r["list-walk"], missed.length === 0, `${query} walked while interviews changed between pages skipped ${missed.join(", ")}, which stayed in the list throughout`, undefined, { seen: mine, throughout });
  }
  override toString = () => `walkInterviews(${this.status ?? "any status"}, limit ${this.limit})`;
}

export const walkInterviews: CommandSpec = {
  name: "walkInterviews",
  doc: "the study's interviews walked at limit 1 to 3, with or without status=started, while one is started and one completed between pages",
  statements: ["endpoints.starting-after", "endpoints.next-page", "list.has-more", "endpoints.list-interviews"],
  needs: ["plant-interview", "hold", "complete"],
  weight: 1,
  draw: () => fc.tuple(fc.constantFrom<"started" | null>("started", null), fc.integer({ min: 1, max: 3 })).map(([s, l]) => new WalkInterviews(s, l)),
};
