// Keyset pagination on every list: any limit walks the whole list, each item exactly once, in the
// documented order, with an exact has_more; bad limits and cursors are 400s.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acme, expected, globex } from "./oracle.ts";
import { GLOBEX, NEVER, startApi, type Api } from "./helpers.ts";

let api: Api;
beforeAll(async () => void (api = await startApi()));
afterAll(() => api.server.close());

const want = expected(acme.id);
const busiestChat = [...want.chats].sort((a, b) => want.messagesOf(b.id).length - want.messagesOf(a.id).length)[0];
const study = want.studies[0];

const lists: Array<[string, () => string[]]> = [
  ["/v1/studies", () => want.studies.map((s) => s.id)],
  ["/v1/interviews", () => want.interviews.map((i) => i.id)],
  ["/v1/interviews?status=completed", () => want.interviews.filter((i) => i.status === "completed").map((i) => i.id)],
  [`/v1/interviews?study_id=${study.id}`, () => want.interviews.filter((i) => i.study_id === study.id).map((i) => i.id)],
  ["/v1/releases", () => want.releases.map((r) => r.id)],
  ["/v1/releases?status=dismissed", () => want.releases.filter((r) => r.status === "dismissed").map((r) => r.id)],
  ["/v1/chats", () => want.chats.map((c) => c.id)],
  [`/v1/chats/${busiestChat.id}/messages`, () => want.messagesOf(busiestChat.id).map((m) => m.id)],
];

describe("full walks", () => {
  it.each(lists)("%s: any limit returns every item once, in order, has_more exact", async (path, ids) => {
    const all = ids();
    expect(all.length).toBeGreaterThan(1);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 100 }), async (limit) => {
        const { items, pages } = await api.walk(path, limit);
        expect(items.map((i) => i.id)).toEqual(all);
        pages.forEach((p, n) => {
          const last = n === pages.length - 1;
          expect(p.body.has_more).toBe(!last);
          expect(p.body.data.length).toBe(last ? all.length - limit * (pages.length - 1) : limit);
        });
      }),
      { numRuns: 12, seed: 20260302 },
    );
  }, 60_000);

  it("the default page size is 20", async () => {
    const res = await api.req("/v1/interviews");
    expect(res.body.data).toHaveLength(20);
    expect(res.body.has_more).toBe(true);
  });

  it("a page that ends exactly at the end of the list says has_more false", async () => {
    const n = want.studies.length;
    const res = await api.req(`/v1/studies?limit=${n}`);
    expect(res.body.data).toHaveLength(n);
    expect(res.body.has_more).toBe(false);
  });

  it("two identical calls are byte-identical", async () => {
    const a = await api.req("/v1/interviews?limit=100");
    const b = await api.req("/v1/interviews?limit=100");
    expect(a.text).toBe(b.text);
  });
});

describe("bad limits and cursors", () => {
  it.each(["0", "101", "-1", "1.5", "abc", ""])("limit=%s -> 400 Invalid parameters", async (limit) => {
    for (const path of ["/v1/studies", "/v1/interviews", "/v1/releases", "/v1/chats", `/v1/chats/${busiestChat.id}/messages`]) {
      const res = await api.req(`${path}?limit=${limit}`);
      expect(res.status, `${path}?limit=${limit}`).toBe(400);
      expect(res.body.error.message).toBe("Invalid parameters");
      expect(res.body.error.details).toEqual([expect.objectContaining({ location: "query", field: "limit" })]);
    }
  });

  it("an unknown UUID cursor is a 400 on every list", async () => {
    for (const [path, noun] of [["/v1/studies", "study"], ["/v1/interviews", "interview"], ["/v1/releases", "release"], ["/v1/chats", "chat"], [`/v1/chats/${busiestChat.id}/messages`, "message"]]) {
      const res = await api.req(`${path}?starting_after=${NEVER}`);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(`No such ${noun}: ${NEVER}`);
    }
  });

  it("a cursor of another project, another list or outside the filter is a 400 like an unknown id", async () => {
    const foreign = expected(globex.id).interviews[0].id;
    const other = await api.req(`/v1/interviews?starting_after=${foreign}`);
    expect(other.status).toBe(400);
    expect(other.body.error.message).toBe(`No such interview: ${foreign}`);
    const wrongList = await api.req(`/v1/chats?starting_after=${want.interviews[0].id}`);
    expect(wrongList.status).toBe(400);
    const notInFilter = want.interviews.find((i) => i.status !== "completed")!;
    const filtered = await api.req(`/v1/interviews?status=completed&starting_after=${notInFilter.id}`);
    expect(filtered.status).toBe(400);
    const paused = want.allStudies.find((s) => s.status !== "active")!;
    expect((await api.req(`/v1/studies?starting_after=${paused.id}`)).status).toBe(400);
    const globexView = await api.req(`/v1/interviews?starting_after=${want.interviews[0].id}`, { key: GLOBEX });
    expect(globexView.status).toBe(400);
  });

  it("a message cursor of another chat is a 400", async () => {
    const otherChat = want.chats.find((c) => c.id !== busiestChat.id && want.messagesOf(c.id).length > 0)!;
    const cursor = want.messagesOf(otherChat.id)[0].id;
    const res = await api.req(`/v1/chats/${busiestChat.id}/messages?starting_after=${cursor}`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(`No such message: ${cursor}`);
  });
});
