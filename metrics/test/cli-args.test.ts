// How api-metrics reads its option values, without a process: the definition inline or from @file, comma lists,
// and arm=weight splits, each refusing what it cannot use in words that name it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { json, list, split } from "../src/cli-args.ts";

describe("api-metrics option values", () => {
  it("reads a definition inline or from @file, and names a file it cannot read or text that is not JSON", () => {
    expect(json('{"type":"conversion","event":"purchase"}')).toEqual({ type: "conversion", event: "purchase" });
    const dir = mkdtempSync(join(tmpdir(), "cli-args-"));
    try {
      writeFileSync(join(dir, "d.json"), '{"type":"retention","event":"open","threshold":2}');
      expect(json(`@${join(dir, "d.json")}`)).toEqual({ type: "retention", event: "open", threshold: 2 });
      expect(() => json(`@${join(dir, "missing.json")}`)).toThrow(/cannot read .*missing\.json/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(() => json("{type: conversion}")).toThrow(/must be JSON \(or @file\.json\)/);
  });

  it("accumulates comma lists over repeats", () => {
    expect(list("b,c", list("a"))).toEqual(["a", "b", "c"]);
  });

  it("reads arm=weight pairs, keeping names that shadow Object's own (__proto__, constructor)", () => {
    expect(split("control=50,treatment=50")).toEqual({ control: 50, treatment: 50 });
    expect(split("a=1e-3,b=2.5")).toEqual({ a: 0.001, b: 2.5 });
    const odd = split("__proto__=1,constructor=2");
    expect(Object.keys(odd)).toEqual(["__proto__", "constructor"]);
    expect(odd.constructor).toBe(2);
  });

  it("refuses what is not a positive finite weight, naming the arm and the text as written", () => {
    expect(() => split("control")).toThrow(/must be arm=weight pairs.*"control"/);
    expect(() => split("=5")).toThrow(/must be arm=weight pairs/);
    expect(() => split("a=")).toThrow(/must be arm=weight pairs/);
    expect(() => split("a=0")).toThrow(/the weight of a must be a number > 0; got "0"$/);
    expect(() => split("a=-1")).toThrow(/the weight of a must be a number > 0/);
    expect(() => split("a=1e-400")).toThrow(/below a double's smallest/);
    expect(() => split("a=1e400")).toThrow(/past a double's largest/);
    expect(() => split("a=Infinity")).toThrow(/must be a finite number > 0; got "Infinity"$/);
    expect(() => split("a=NaN")).toThrow(/must be a finite number > 0; got "NaN"$/);
  });
});
