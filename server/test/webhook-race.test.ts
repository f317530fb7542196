// Two PUTs of a project's first webhook whose handlers interleave: each reads "none" before either writes. Under load
// the admission starts a turn's waiting requests together, and the suite's covering phase caught the reference server
// answering both 201, each with a secret of its own (only the second kept). The handler is called as the router calls
// it, over the real memory store, so the interleaving is not left to chance.
import { describe, expect, it } from "vitest";
import { webhooksHandlers } from "../src/handlers/webhooks.ts";
import type { HandlerDeps } from "../src/handlers/deps.ts";
import { Project } from "../src/model/project.ts";
import { MemoryBackend } from "../src/stores/memory/backend.ts";
import { MemoryWebhookSettings } from "../src/stores/memory/webhook-settings.ts";

function handlers() {
  const changed: unknown[] = [];
  const webhookSettings = new MemoryWebhookSettings(new MemoryBackend());
  const deps = { webhookSettings, addressPolicy: { allowLoopback: false }, webhooks: { webhookChanged: async (_p: Project, w: unknown) => void changed.push(w) } } as unknown as HandlerDeps;
  return { h: webhooksHandlers(deps), changed, webhookSettings };
}

const put = (h: ReturnType<typeof handlers>["h"], project: Project, url: string) => h.putWebhook({ project, body: { url, events: ["interview.completed"] } } as never);

describe("PUT /v1/webhooks at once", () => {
  it("is one creation: one 201 with the secret, the others updates of it (200, the secret kept)", async () => {
    const { h, changed, webhookSettings } = handlers();
    const project = new Project({ id: "p", name: "p", api_key: "", public_key: "" });
    const answers = await Promise.all(Array.from({ length: 4 }, (_, k) => put(h, project, `https://hooks.example.com/race-${k}`)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 201]);
    const created = answers.find((a) => a.status === 201)!.body as { signing_secret: string };
    expect(answers.filter((a) => a.status === 200).every((a) => !("signing_secret" in (a.body as object)))).toBe(true);
    // The webhook in force is the last PUT's URL, signed with the one secret answered.
    const now = await webhookSettings.get(project);
    expect(now?.signing_secret).toBe(created.signing_secret);
    expect(now?.url).toBe(`https://hooks.example.com/race-3`);
    expect(changed.length).toBe(3);
  });

  it("creates again after a DELETE, once", async () => {
    const { h } = handlers();
    const project = new Project({ id: "p", name: "p", api_key: "", public_key: "" });
    await put(h, project, "https://hooks.example.com/first");
    await h.deleteWebhook({ project } as never);
    const answers = await Promise.all([put(h, project, "https://hooks.example.com/a"), put(h, project, "https://hooks.example.com/b")]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 201]);
  });
});
