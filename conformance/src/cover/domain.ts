/**
 * Values from the whole domain the contract declares, biased to the edges: fast-check arbitraries read from a schema
 * of `generated/openapi.json` (its type, lengths and bounds), seeded by the run and shrinkable. The hand-written
 * classes of the units are extra edge cases on top of these, never the domain.
 */
import fc from "fast-check";
import type { Contract } from "../contract.ts";

/** Characters a URL or a query string treats specially, with hex digits so that `%XX` forms. */
const URL_SPECIAL = ["%", "+", "&", "=", "#", "/", "?", " ", ";", "4", "1", "2", "5", "a", "A", "F", "é", "😀"];

/** A string schema's bounds (`minLength`, `maxLength`), defaulting to the edges worth trying. */
function bounds(schema: any): { min: number; max: number } {
  return { min: schema?.minLength ?? 0, max: Math.min(schema?.maxLength ?? 200, 200) };
}

/**
 * Strings of the schema's domain, biased to the edges: any Unicode text (graphemes, beyond the BMP and combining marks
 * included), text made of what a URL treats specially (`%` before hex digits, `+`, `&`, `=`, `#`, `/`, space), case
 * twins of ASCII words, and the longest the schema allows; spaces at either end are kept (a value is never trimmed).
 */
export function stringDomain(schema: any, minLength = 1): fc.Arbitrary<string> {
  const { min, max } = bounds(schema);
  const lo = Math.max(min, minLength);
  const hi = Math.max(lo, max);
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ unit: "grapheme", minLength: lo, maxLength: Math.min(hi, 40) }) },
    { weight: 3, arbitrary: fc.string({ unit: fc.constantFrom(...URL_SPECIAL), minLength: lo, maxLength: Math.min(hi, 16) }) },
    { weight: 2, arbitrary: fc.mixedCase(fc.string({ unit: fc.constantFrom("a", "b", "x", "_", "1"), minLength: Math.max(lo, 1), maxLength: Math.min(hi, 12) })) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: hi, maxLength: hi }) },
  ).filter((s) => s.length >= lo && s.length > 0);
}

/** The schema of a property of a component schema of the contract (e.g. `SimInterviewInput`, `reference_id`). */
export function propertySchema(contract: Contract, component: string, property: string): any {
  const schemas = (contract.doc as any).components?.schemas ?? {};
  return schemas[component]?.properties?.[property];
}

/** An integer schema out of a nullable one (`anyOf` of an integer and null), or the schema itself. */
const integerBranch = (schema: any): any => schema?.anyOf?.find((x: any) => x?.type === "integer") ?? schema;

/**
 * An integer schema's bounds: its `minimum` and `maximum`, else those of its `format` (int32, int64 as far as a JSON
 * number is exact). A count without a minimum starts at 0: a count is never negative, and a states module may refuse one.
 */
export function integerBounds(schema: any): { min: number; max: number } {
  const s = integerBranch(schema);
  const wide = s?.format === "int32" ? 2 ** 31 - 1 : Number.MAX_SAFE_INTEGER;
  return { min: Math.max(s?.minimum ?? 0, 0), max: Math.min(s?.maximum ?? wide, wide) };
}

/**
 * The edges of an integer schema's domain: its bounds, 0 and 1, and each side of every width a store may cut a count
 * to (8, 16, 24 and 32 bits, signed or not, and 2^24 + 1, the first integer a 32-bit float cannot hold).
 */
export function integerEdges(schema: any): number[] {
  const { min, max } = integerBounds(schema);
  const near = [7, 8, 15, 16, 24, 31, 32].flatMap((bits) => [2 ** bits - 1, 2 ** bits]);
  return [...new Set([min, 0, 1, ...near, 2 ** 24 + 1, max])].filter((n) => n >= min && n <= max).sort((a, b) => a - b);
}

/** Integers of the schema's domain, biased to its edges (integerEdges), seeded and shrinkable toward its minimum. */
export function integerDomain(schema: any): fc.Arbitrary<number> {
  const { min, max } = integerBounds(schema);
  return fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...integerEdges(schema)) }, { weight: 1, arbitrary: fc.integer({ min, max }) });
}
