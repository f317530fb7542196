/** Shared test plumbing: the real server on a free port, a frozen clock at the fixtures' anchor, and an HTTP helper. */
import { readDataset } from "../src/model/dataset.ts";
import { startServer, type RunningServer } from "../src/testing.ts";
import type { AppOptions } from "../src/app.ts";
import { call, type Reply } from "../../test/support/http.ts";

export const ACME = "svc_live_acme_0123456789abcdef0123456789abcdef";
export const GLOBEX = "svc_live_globex_0123456789abcdef0123456789abcdef";
export const ACME_PK = "pk_live_acme_0123456789abcdef0123456789abcdef";
export const GLOBEX_PK = "pk_live_globex_0123456789abcdef0123456789abcdef";
export const NEVER = "00000000-0000-4000-8000-000000000000";

export const ANCHOR_MS = Date.parse(readDataset().anchor);

/** A clock frozen at the fixtures' anchor that tests can move. */
export function fixedClock(ms = ANCHOR_MS) {
  let now = ms;
  return { now: () => now, set: (t: number) => void (now = t), advance: (d: number) => void (now += d) };
}

export type { Reply } from "../../test/support/http.ts";

export interface Api {
  server: RunningServer;
  req<T = any>(path: string, init?: { key?: string | null; method?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<Reply<T>>;
  /** Every item of a list, walking `starting_after` with the given page size. */
  walk<T extends { id: string } = any>(path: string, limit: number, key?: string): Promise<{ items: T[]; pages: Reply[] }>;
}

export async function startApi(options: AppOptions = {}): Promise<Api> {
  const server = await startServer({ clock: fixedClock(), ...options });
  const api: Api = {
    server,
    req: (path, init = {}) => call(server.baseUrl, path, { ...init, key: init.key === undefined ? ACME : init.key }),
    async walk(path, limit, key = ACME) {
      const items: any[] = [];
      const pages: Reply[] = [];
      let after: string | undefined;
      for (let guard = 0; guard < 10_000; guard++) {
        const sep = path.includes("?") ? "&" : "?";
        const page = await api.req(`${path}${sep}limit=${limit}${after ? `&starting_after=${after}` : ""}`, { key });
        if (page.status !== 200) throw new Error(`${path} answered ${page.status}: ${page.text}`);
        pages.push(page);
        items.push(...page.body.data);
        if (!page.body.has_more) return { items, pages };
        after = page.body.data[page.body.data.length - 1].id;
      }
      throw new Error("walk did not end");
    },
  };
  return api;
}
