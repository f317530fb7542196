/** Reads of a sequence's own ids with another project's key, which must each answer 404 (otherProject, createProject). */
import type { Reply } from "../http.ts";
import type { Model, World } from "./world.ts";

/** Reads of this sequence's study, latest interviews and latest visible chat with another project's key: each must be 404. */
export async function foreignReads(m: Model, key: string, w: World): Promise<Array<[string, Reply]>> {
  const client = key === w.other?.apiKey ? w.other! : w.http;
  const opts = key === w.http.apiKey || key === w.other?.apiKey ? {} : { key };
  const reads: Array<[string, Reply]> = [];
  if (m.study) reads.push(["study", await client.req(`/v1/studies/${m.study.id}`, opts)]);
  for (const id of [...m.interviews.keys()].slice(-2)) reads.push(["interview", await client.req(`/v1/interviews/${id}`, opts)]);
  for (const c of m.chats.filter((x) => x.visible).slice(-1)) reads.push(["chat", await client.req(`/v1/chats/${c.id}`, opts)]);
  return reads;
}
