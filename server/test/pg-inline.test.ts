/**
 * `prepared` (stores/postgres/backend.ts) names each statement text, so every pooled connection parses and plans it
 * once. `inline` writes a change's values into statements sent with its COMMIT, which take no
 * parameters: every value must come out as the literal PostgreSQL reads back exactly, and anything it cannot write
 * must be refused, never written as something else.
 */
import { describe, expect, it } from "vitest";
import { inline, prepared } from "../src/stores/postgres/backend.ts";

describe("inline", () => {
  it("writes strings, whole numbers, booleans, NULL and arrays of strings as literals", () => {
    expect(inline("SELECT $1, $2, $3, $4", ["it's", 42, true, null])).toBe("SELECT 'it''s', 42, true, NULL");
    expect(inline("WHERE id = ANY($1::text[])", [["a", "b'c"]])).toBe("WHERE id = ANY(ARRAY['a', 'b''c']::text[])");
    expect(inline("WHERE id = ANY($1::text[])", [[]])).toBe("WHERE id = ANY('{}'::text[])");
    // A backslash makes an E'' literal; `$2` inside a value is not a parameter written again.
    expect(inline("SELECT $1, $2", ["a\\b $2", "x"])).toBe("SELECT  E'a\\\\b $2', 'x'");
    // $10 is the tenth value, not the first followed by 0.
    expect(inline("SELECT $10", Array.from({ length: 10 }, (_, i) => String(i)))).toBe("SELECT '9'");
  });

  it("refuses what it cannot write exactly", () => {
    expect(() => inline("SELECT $1", [1.5])).toThrow(/cannot write number/);
    expect(() => inline("SELECT $1", [{ a: 1 }])).toThrow(/cannot write object/);
    expect(() => inline("SELECT $1", [[1, 2]])).toThrow(/cannot write object/);
    expect(() => inline("SELECT $1", [undefined])).toThrow(/cannot write undefined/);
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

