/**
 * Model commands on who may see what: the other project (its webhook and its reads of this sequence's ids), projects
 * created during the sequence, and forged keys.
 */
import type { Reply } from "../../http.ts";
import type { Capability } from "../../states/capabilities.ts";
import { r } from "../rules.ts";
import { hookPath, type Model, type World } from "../world.ts";
import { Command } from "./base.ts";

/** Reads of this sequence's study, latest interviews and latest visible chat with another project's key: each must be 404. */
async function foreignReads(m: Model, key: string, w: World): Promise<Array<[string, Reply]>> {
  const client = key === w.other?.apiKey ? w.other! : w.http;
  const opts = key === w.http.apiKey || key === w.other?.apiKey ? {} : { key };
  const reads: Array<[string, Reply]> = [];
  if (m.study) reads.push(["study", await client.req(`/v1/studies/${m.study.id}`, opts)]);
  for (const id of [...m.interviews.keys()].slice(-2)) reads.push(["interview", await client.req(`/v1/interviews/${id}`, opts)]);
  for (const c of m.chats.filter((x) => x.visible).slice(-1)) reads.push(["chat", await client.req(`/v1/chats/${c.id}`, opts)]);
  return reads;
}

/** The other project: its webhook (never told of this project's interviews) and its reads of this sequence's ids. */
export class OtherProject extends Command {
  readonly name = "otherProject";
  constructor(readonly configure: boolean) {
    super();
  }
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    if (!w.other) return;
    if (this.configure && !m.otherWebhook) {
      const url = new URL(w.receiver.url);
      url.pathname = hookPath(m, "other");
      const put = await w.other.req("/v1/webhooks", { method: "PUT", body: { url: url.toString(), events: ["interview.completed"] } });
      if (put.status < 300) m.otherWebhook = { path: url.pathname };
    }
    for (const [what, reply] of await foreignReads(m, w.other.apiKey, w)) w.judge.expect(r.isolation, reply.status === 404, `the other project's key read this project's ${what} (${reply.path}) as ${reply.status}, not 404`, reply);
  }
  override toString = () => `otherProject(${this.configure ? "configure its webhook, " : ""}read this project's ids)`;
}

export class ForgedKey extends Command {
  readonly name = "forgedKey";
  constructor(readonly how: "changed" | "cut" | "longer" | "case" | "prefix") {
    super();
  }
  protected async act(_m: Model, w: World) {
    const key = w.http.apiKey;
    const last = key[key.length - 1];
    const forged = {
      changed: key.slice(0, -1) + (last === "a" ? "b" : "a"),
      cut: key.slice(0, -1),
      longer: `${key}0`,
      case: key.toUpperCase() === key ? key.toLowerCase() : key.toUpperCase(),
      prefix: key.slice(0, key.indexOf("_", key.indexOf("_") + 1) + 1) || "svc_live_",
    }[this.how];
    const reply = await w.http.req("/v1/webhooks", { key: forged });
    w.judge.expect(r.credentials, reply.status === 401, `a key ${this.how === "prefix" ? "that is the bare prefix" : `${this.how} from a valid one`} answered ${reply.status}, not 401`, reply);
  }
  override toString = () => `forgedKey(${this.how})`;
}

/**
 * A project created during the run (at most two, shared by the sequences): it lists nothing of this project's, reads this sequence's ids as 404, has no
 * webhook until it sets one, and the webhook it sets never hears of this project's interviews (judged in settle).
 */
export class CreateProject extends Command {
  readonly name = "createProject";
  static override needs: Capability[] = ["create-project"];
  override check = (m: Readonly<Model>) => m.projects.length < 2;
  protected async act(m: Model, w: World) {
    if (w.projectPool.length < 2) w.projectPool.push((await w.ctx.states.createProject(`Model project ${m.seq}`)).api_key);
    const key = w.projectPool[m.projects.length % w.projectPool.length];
    const hook = await w.http.req("/v1/webhooks", { key });
    w.judge.expect(r["project-isolation"], hook.status === 404, `GET /v1/webhooks of a project created during the sequence answered ${hook.status}, not 404 (none configured)`, hook);
    const url = new URL(w.receiver.url);
    url.pathname = hookPath(m, `project${m.projects.length}`);
    const put = await w.http.req("/v1/webhooks", { method: "PUT", key, body: { url: url.toString(), events: ["interview.completed"] } });
    m.projects.push({ apiKey: key, hookPath: put.status < 300 ? url.pathname : null });
    for (const [what, reply] of await foreignReads(m, key, w)) w.judge.expect(r["project-isolation"], reply.status === 404, `a project created during the sequence read this project's ${what} (${reply.path}) as ${reply.status}, not 404`, reply);
    const mine = new Set([...m.interviews.keys(), ...m.chats.map((c) => c.id), ...(m.study ? [m.study.id] : [])]);
    for (const list of ["/v1/studies", "/v1/interviews", "/v1/chats"]) {
      const reply = await w.http.req(`${list}?limit=100`, { key });
      const leaked = (reply.body?.data ?? []).filter((x: any) => mine.has(x.id)).map((x: any) => x.id);
      w.judge.expect(r["project-isolation"], reply.status === 200 && leaked.length === 0, `${list} with the key of a project created during the sequence answered ${reply.status}${leaked.length ? ` listing this project's ${leaked.join(", ")}` : ""}`, reply);
    }
  }
}
