/** Black-box discovery of what the server holds, walked once per run and shared by the checks. */
import { CheckFailure, type Http } from "./http.ts";

export interface Snapshot {
  studies: any[];
  interviews: any[];
  releases: any[];
  chats: any[];
}

const cache = new WeakMap<Http, Promise<Snapshot>>();

export function snapshot(http: Http): Promise<Snapshot> {
  let s = cache.get(http);
  if (!s) {
    s = (async () => {
      try {
        return {
          studies: (await http.walk("/v1/studies", 100)).items,
          interviews: (await http.walk("/v1/interviews", 100)).items,
          releases: (await http.walk("/v1/releases", 100)).items,
          chats: (await http.walk("/v1/chats", 100)).items,
        };
      } catch (err) {
        // Every check that needs the data fails with this, so say it is the discovery that failed.
        if (err instanceof CheckFailure) throw new CheckFailure(`listing the server's data failed: ${err.message}`, { reply: err.reply });
        throw err;
      }
    })();
    cache.set(http, s);
  }
  return s;
}

const messages = new WeakMap<Http, Map<string, Promise<any[]>>>();

export function messagesOf(http: Http, chatId: string): Promise<any[]> {
  if (!messages.has(http)) messages.set(http, new Map());
  const m = messages.get(http)!;
  if (!m.has(chatId)) m.set(chatId, http.walk(`/v1/chats/${chatId}/messages`, 100).then((r) => r.items));
  return m.get(chatId)!;
}

export const NEVER_ID = "00000000-0000-4000-8000-000000000000";

/** An operation's path with `{id}` an item of its resource the snapshot holds (an id of nothing where it holds none). */
export function pathWithId(s: Snapshot, path: string): string {
  const [, resource] = /^\/v1\/([a-z]+)\/\{id\}/.exec(path) ?? [];
  const items = resource !== undefined && resource in s ? s[resource as keyof Snapshot] : [];
  return path.replace("{id}", items[0]?.id ?? NEVER_ID);
}

/** How many more interviews a study takes before a cap stops it (Infinity when both windows are unlimited). */
export const headroom = (s: any): number => Math.min(...(["weekly", "monthly"] as const).map((k) => (s.limits?.[k]?.limit == null ? Infinity : s.limits[k].limit - s.limits[k].used)));

/** Sorts studies with the most room first (unlimited ones first of all), so checks do not fill small planted caps. */
export const byHeadroom = (a: any, b: any): number => {
  const [x, y] = [headroom(a), headroom(b)];
  return x === y ? 0 : x > y ? -1 : 1;
};
