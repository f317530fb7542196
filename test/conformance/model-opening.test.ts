// The model's opening (conformance/src/model/opening.ts), without a server: every command is opened or left to the
// covering phase with a reason, and what the capabilities and options leave out of the draw is left out of it too.
import { describe, expect, it } from "vitest";
import { COMMANDS, KIND_NEEDS, PlantChat, type DrawOptions } from "../../conformance/src/model/commands/index.ts";
import { LEFT_TO_COVER, openedCommands, openings } from "../../conformance/src/model/opening.ts";
import { CapabilitySet, type Capability } from "../../conformance/src/states/capabilities.ts";

const options = (lacking: Capability[] = [], more: Partial<DrawOptions> = {}): DrawOptions => ({
  caps: new CapabilitySet(lacking.map((c) => [c, "not offered here"])), retryDelaysMs: [400, 800, 1200], receiverTimeoutMs: 2000,
  withOther: true, withPublicKey: true, ...more,
});

describe("the model's opening", () => {
  it("opens every command, or leaves it to the covering phase with a reason", () => {
    const opened = openedCommands(options());
    for (const spec of COMMANDS) {
      if (spec.name in LEFT_TO_COVER) expect(opened.has(spec.name), `${spec.name} is opened and left to cover`).toBe(false);
      else expect(opened.has(spec.name), `${spec.name} is neither opened nor left to the covering phase`).toBe(true);
    }
    for (const name of Object.keys(LEFT_TO_COVER)) expect(COMMANDS.map((c) => c.name)).toContain(name);
  });

  it("uses each message of the fresh start's chat (visible, hidden, internal-only) as a cursor", () => {
    const cursors = openings(options()).flatMap((o) => o.commands).filter((c) => c.name === "messageCursor") as unknown as Array<{ pick: number; message: number }>;
    const onFirst = new Set(cursors.filter((c) => c.pick === 0).map((c) => c.message % 4));
    expect([...onFirst].sort()).toEqual([0, 1, 2, 3]);
  });

  it("plants every visibility, and a null title and a null source on visible chats", () => {
    const chats = openings(options()).flatMap((o) => o.commands).filter((c): c is PlantChat => c instanceof PlantChat);
    expect(new Set(chats.map((c) => c.visibility))).toEqual(new Set(["visible", "internal", "evaluation", "release"]));
    expect(chats.some((c) => c.visibility === "visible" && c.title === null)).toBe(true);
    expect(chats.some((c) => c.visibility === "visible" && c.source === null)).toBe(true);
  });

  it("leaves out what the target lacks or the run does not draw, as the draw does", () => {
    const without = openings(options(["hidden-messages", "recorded-parts", "plant-chat", "create-project"], { withOther: false, withPublicKey: false, experimentsRemoved: true }));
    const names = new Set(without.flatMap((o) => o.commands.map((c) => c.name)));
    for (const gone of ["plantChat", "walkChats", "createProject", "otherProject", "walkWhileOthersRead", "launch", "readExperiments"]) expect(names.has(gone), gone).toBe(false);
    expect(names.has("messageCursor")).toBe(true);
    const kinds = openings(options(["hidden-messages", "recorded-parts"])).flatMap((o) => o.commands).filter((c): c is PlantChat => c instanceof PlantChat).flatMap((c) => c.kinds);
    expect(kinds.filter((k) => KIND_NEEDS[k].length > 0)).toEqual([]);
    expect(without.every((o) => o.commands.length > 0)).toBe(true);
    // The seed's schedule (10 s, 1 min, 5 min) does not fit a sequence: not drawn, so not opened.
    const seedSchedule = openedCommands(options([], { retryDelaysMs: [10_000, 60_000, 300_000], receiverTimeoutMs: 10_000 }));
    for (const gone of ["completeSeries", "recreateWithRetry"]) expect(seedSchedule.has(gone), gone).toBe(false);
    expect(seedSchedule.has("completeInterview")).toBe(true);
  });
});
