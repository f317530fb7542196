/**
 * `prepared` (stores/postgres/backend.ts) names each statement text, so every pooled connection parses and plans it
 * once. `batched` (stores/postgres/batched.ts) writes the same statement of several changes in a group commit as one,
 * every value still a bound parameter: each change's copy of the `VALUES` list numbered past the ones before it, and a
 * text it cannot repeat that way refused (sent once per change), never written as something else.
 */
import { describe, expect, it } from "vitest";
import { prepared } from "../src/stores/postgres/backend.ts";
import { batched } from "../src/stores/postgres/batched.ts";

describe("batched", () => {
  it("repeats an insert's row once per change, its parameters numbered on, its values in order", () => {
    const odd = "O'Brien ), ($9 '); DROP TABLE chats; --";
    expect(batched("INSERT INTO studies (project_id, id, doc) VALUES ($1, $2, $3)", [["p", "s1", odd], ["p", "s2", "{}"]])).toEqual({
      text: "INSERT INTO studies (project_id, id, doc) VALUES ($1, $2, $3), ($4, $5, $6)",
      values: ["p", "s1", odd, "p", "s2", "{}"],
    });
    // One change: the text as it is.
    expect(batched("INSERT INTO t (a) VALUES ($1)", [["x"]])).toEqual({ text: "INSERT INTO t (a) VALUES ($1)", values: ["x"] });
  });

  it("repeats a list of several rows whole, and a list written over VALUES in a FROM, with what follows it kept", () => {
    expect(batched("INSERT INTO timers (id, kind, due) VALUES ($1, 'processing', $2), ($1, 'completed', $3) ON CONFLICT DO NOTHING", [["a", 1, 2], ["b", 3, 4]])).toEqual({
      text: "INSERT INTO timers (id, kind, due) VALUES ($1, 'processing', $2), ($1, 'completed', $3), ($4, 'processing', $5), ($4, 'completed', $6) ON CONFLICT DO NOTHING",
      values: ["a", 1, 2, "b", 3, 4],
    });
    const take = "SELECT planted_take(v.t, v.s) FROM (VALUES ($1::text, $2::smallint)) AS v(t, s)";
    expect(batched(take, [["acme", 1], ["acme", 3], ["globex", 0]])).toEqual({
      text: "SELECT planted_take(v.t, v.s) FROM (VALUES ($1::text, $2::smallint), ($3::text, $4::smallint), ($5::text, $6::smallint)) AS v(t, s)",
      values: ["acme", 1, "acme", 3, "globex", 0],
    });
    // An array value stays one value; $10 is the tenth, not the first followed by 0.
    const ten = `INSERT INTO t VALUES (${Array.from({ length: 10 }, (_, i) => `$${i + 1}`).join(", ")})`;
    const out = batched(ten, [Array.from({ length: 10 }, (_, i) => i), [["a", "b"], 1, 2, 3, 4, 5, 6, 7, 8, 9]]);
    expect(out?.text.endsWith("$10), ($11, $12, $13, $14, $15, $16, $17, $18, $19, $20)")).toBe(true);
    expect(out?.values[10]).toEqual(["a", "b"]);
    // Parentheses and quotes inside the row's literals do not end it.
    expect(batched("INSERT INTO t VALUES ($1, ')(', ($2 + 1))", [[1, 2], [3, 4]])?.text).toBe("INSERT INTO t VALUES ($1, ')(', ($2 + 1)), ($3, ')(', ($4 + 1))");
  });

  it("refuses a text whose parameters are not all in its VALUES list, or that has none, or values of another length", () => {
    expect(batched("UPDATE attempts SET status = 'failed', error = $2 WHERE id = $1", [["a", "x"], ["b", "y"]])).toBeNull();
    expect(batched("INSERT INTO t (a, b) VALUES ($1, 'x') RETURNING $2", [[1, 2], [3, 4]])).toBeNull();
    expect(batched("INSERT INTO t (a) VALUES ('fixed')", [[], []])).toBeNull();
    expect(batched("INSERT INTO t (a, b) VALUES ($1, $2)", [["a", "b"], ["c"]])).toBeNull();
    expect(batched("INSERT INTO t (a) VALUES ($1, 'unclosed)", [["a"], ["b"]])).toBeNull();
  });
});

describe("prepared", () => {
  it("names each text once, the same name for the same text, none for a text selecting every column, and none past the bound", () => {
    const a = prepared("SELECT doc FROM studies WHERE project_id = $1", ["p1"]);
    expect(a).toEqual({ name: expect.stringMatching(/^sandbox_\d+$/), text: "SELECT doc FROM studies WHERE project_id = $1", values: ["p1"] });
    expect(prepared("SELECT doc FROM studies WHERE project_id = $1", ["p2"])).toEqual({ ...a, values: ["p2"] });
    expect(prepared("SELECT doc FROM chats WHERE project_id = $1", ["p1"]).name).not.toBe(a.name);
    // A kept plan of `*` would fail once a migration adds a column while the process runs.
    expect(prepared("SELECT * FROM attempts WHERE project_id = $1", ["p1"])).toEqual({ text: "SELECT * FROM attempts WHERE project_id = $1", values: ["p1"] });
    const names = new Set(Array.from({ length: 1_100 }, (_, i) => prepared(`SELECT ${i}`, []).name));
    expect(names.has(undefined)).toBe(true);
    expect([...names].filter((n) => n !== undefined).length).toBe(1_000 - 2);
  });
});

