/**
 * An independent oracle for tests: what each list should hold, recomputed straight from the fixture file
 * with the rules of the seed and DESIGN.md, without any server code.
 */
import { readFileSync } from "node:fs";
import type { FixtureDataset } from "../../fixtures/types.ts";

export const dataset = JSON.parse(readFileSync(new URL("../../fixtures/data/default.json", import.meta.url), "utf8")) as FixtureDataset;
export const acme = dataset.projects[0];
export const globex = dataset.projects[1];

const desc = (key: string) => (a: any, b: any) => (a[key] < b[key] ? 1 : a[key] > b[key] ? -1 : a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
const asc = (key: string) => (a: any, b: any) => -desc(key)(a, b);

export function expected(projectId: string) {
  const mine = <T extends { project_id: string }>(xs: T[]) => xs.filter((x) => x.project_id === projectId);
  const chats = mine(dataset.chats).filter((c) => c.visibility === "visible").sort(desc("created_at"));
  const visibleChatIds = new Set(chats.map((c) => c.id));
  const messages = mine(dataset.messages).filter((m) => !m.hidden && visibleChatIds.has(m.chat_id)).sort(asc("created_at"));
  return {
    studies: mine(dataset.studies).filter((s) => s.status === "active").sort(desc("created_at")),
    allStudies: mine(dataset.studies),
    interviews: mine(dataset.interviews).sort(desc("created_at")),
    releases: mine(dataset.releases).sort(desc("merged_at")),
    chats,
    hiddenChats: mine(dataset.chats).filter((c) => c.visibility !== "visible"),
    messagesOf: (chatId: string) => messages.filter((m) => m.chat_id === chatId),
    hiddenMessages: mine(dataset.messages).filter((m) => m.hidden),
  };
}
