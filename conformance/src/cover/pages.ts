/**
 * The default page, every run, on the lists a project fills past one page by planting: 21 active studies, and where
 * the target plants them 21 releases and 21 visible chats. Read without `limit`, each list holds 20 items with
 * has_more true, and the page after the 20th continues it (in a project of the unit's own: the one item left, with
 * has_more false). The interviews and messages lists are walked past a page by the counts unit.
 */
import type { CoverEnv, Unit } from "./unit.ts";
import { r } from "./rules.ts";

const PAST = 21;

async function judge(env: CoverEnv, path: string, cls: string): Promise<void> {
  const first = await env.req(path);
  const data: any[] = Array.isArray(first.body?.data) ? first.body.data : [];
  env.expect(r["default-page"], first.status === 200 && data.length === 20 && first.body?.has_more === true, `GET ${path} without limit, past ${PAST} items planted, answered ${first.status} with ${data.length} items and has_more ${JSON.stringify(first.body?.has_more)}, not 20 and true`, first);
  const last = data[data.length - 1]?.id;
  if (typeof last === "string") {
    const next = await env.req(`${path}?starting_after=${encodeURIComponent(last)}`);
    const more: any[] = Array.isArray(next.body?.data) ? next.body.data : [];
    const repeated = more.filter((x) => data.some((d) => d.id === x?.id)).map((x) => x.id);
    const whole = env.own ? more.length === PAST - 20 && next.body?.has_more === false : more.length >= 1;
    env.expect(r["default-page"], next.status === 200 && whole && repeated.length === 0, `the page of GET ${path} after its 20th item answered ${next.status} with ${more.length} items (has_more ${JSON.stringify(next.body?.has_more)}${repeated.length ? `, repeating ${repeated.join(", ")}` : ""}), not ${env.own ? `the ${PAST - 20} left and has_more false` : "the rest"}`, next);
  }
  env.reach(cls, r["default-page"].cites);
}

export const pages: Unit = {
  name: "pages",
  doc: "21 active studies, 21 releases and 21 visible chats: each list read without limit holds 20 with has_more true, and the next page continues it",
  needs: ["plant-study"],
  rules: [r["default-page"]],
  classes: (ctx) => ["studies past a page", ...(ctx.states.has("plant-release") ? ["releases past a page"] : []), ...(ctx.states.has("plant-chat") ? ["chats past a page"] : [])],
  async run(env) {
    const { ctx } = env;
    const n = Array.from({ length: PAST }, (_, k) => k);
    await Promise.all(n.map((k) => ctx.states.plantStudy({ name: `Page ${k}`, status: "active", weekly_limit: null, monthly_limit: null }, env.project)));
    await judge(env, "/v1/studies", "studies past a page");
    if (ctx.states.has("plant-release")) {
      const t0 = Date.now() - 3 * 86_400_000;
      await Promise.all(n.map((k) => ctx.states.plantRelease({ vcs_pr_number: 9000 + k, vcs_pr_title: `Page ${k}`, merged_at: new Date(t0 + k * 60_000).toISOString() }, env.project)));
      await judge(env, "/v1/releases", "releases past a page");
    }
    if (ctx.states.has("plant-chat")) {
      await Promise.all(n.map((k) => ctx.states.plantChat({ title: `Page ${k}`, messages: [{ role: "user", parts: [{ type: "text", text: "hello" }] }] }, env.project)));
      await judge(env, "/v1/chats", "chats past a page");
    }
  },
};
