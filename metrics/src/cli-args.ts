/**
 * How `api-metrics` reads its option values: a definition inline or from @file, comma lists that accumulate, and
 * arm=weight splits, each refusing what it cannot use by name (commander prints the message and exits 2).
 */
import { readFileSync } from "node:fs";
import { InvalidArgumentError } from "commander";
import type { MetricDefinition } from "./types.ts";

export const json = (v: string) => {
  const text = v.startsWith("@") ? readText(v.slice(1)) : v;
  try {
    return JSON.parse(text) as MetricDefinition;
  } catch {
    throw new InvalidArgumentError("must be JSON (or @file.json), e.g. '{\"type\":\"conversion\",\"event\":\"purchase\",\"window_days\":7}'");
  }
};
export const readText = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    throw new InvalidArgumentError(`cannot read ${file}`);
  }
};
export const list = (v: string, previous: string[] = []) => [...previous, ...v.split(",")];
export const split = (v: string) => {
  const weights: Record<string, number> = {};
  for (const part of v.split(",")) {
    const at = part.lastIndexOf("=");
    const text = part.slice(at + 1);
    const weight = Number(text);
    if (at < 1 || text.trim() === "") throw new InvalidArgumentError(`must be arm=weight pairs, e.g. control=50,treatment=50; got ${JSON.stringify(part)}`);
    // Number() reads "Infinity" and "1e400" as Infinity and "1e-400" as 0: each is named as written.
    if (!Number.isFinite(weight)) throw new InvalidArgumentError(`the weight of ${part.slice(0, at)} must be a finite number > 0; got ${JSON.stringify(text)}${/^\s*[+-]?(\d|\.\d)/.test(text) && !Number.isNaN(weight) ? " (past a double's largest, 1.8e308)" : ""}`);
    if (!(weight > 0)) throw new InvalidArgumentError(`the weight of ${part.slice(0, at)} must be a number > 0; got ${JSON.stringify(text)}${weight === 0 && /[1-9]/.test(text) ? " (below a double's smallest, 5e-324)" : ""}`);
    Object.defineProperty(weights, part.slice(0, at), { value: weight, enumerable: true, writable: true, configurable: true });
  }
  return weights;
};
