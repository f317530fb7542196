/**
 * Reading an implementation's participant config without assuming its field names (the seed shows none): where its
 * trigger rules are, which field holds a launch token and which the event, and the launch requests to try for a rule.
 * Shared by the participant check and the model's launch command.
 */
import type { Ctx } from "../check.ts";

/** Participant endpoints: a launch decision's modes, and those of a launch decided eligible. */
export const LAUNCH_MODES: readonly string[] = ["webview", "external_browser", "not_eligible"];
export const ELIGIBLE_MODES: readonly string[] = ["webview", "external_browser"];

export interface FoundRules {
  /** Where the rules are in the config, and where the contract puts them. */
  field: string;
  contractField: string;
  rules: any[];
  /** The rule's fields holding the launch token (null when its rules carry none) and the event name. */
  token: string | null;
  event: string;
}

/**
 * The config's trigger rules. The contract names their field (an array whose items have a launch token) and the
 * fields of a rule; an implementation written from the seed alone may name them otherwise (the seed shows no field
 * list), so any array of objects with a token-like and an event-like string field is taken, and the name is a
 * contract difference, not a reason to leave the seed's launch decision untested.
 */
export function triggerRules(ctx: Pick<Ctx, "contract">, config: any): FoundRules | null {
  if (config === null || typeof config !== "object") return null;
  const schema = ctx.contract.resolve(ctx.contract.byId("getParticipantConfig").op.responses["200"].content["application/json"].schema);
  const rulesField = Object.keys(schema.properties ?? {}).find((k) => ctx.contract.resolve(schema.properties[k].items)?.properties?.launchToken) ?? "triggerRules";
  const ruleSchema = ctx.contract.resolve(schema.properties?.[rulesField]?.items);
  const tokenField = Object.keys(ruleSchema?.properties ?? {}).find((k) => /token$/i.test(k)) ?? "launchToken";
  const eventField = Object.keys(ruleSchema?.properties ?? {}).find((k) => /^event/i.test(k)) ?? "eventName";
  // A string field whose name matches, at the top of the rule or one object down (`launch.token`).
  const fieldLike = (o: any, pattern: RegExp, preferred: string): string | undefined => {
    if (typeof o?.[preferred] === "string") return preferred;
    const top = Object.keys(o ?? {}).find((k) => pattern.test(k) && typeof o[k] === "string");
    if (top) return top;
    for (const [k, v] of Object.entries(o ?? {})) {
      const inner = v !== null && typeof v === "object" && !Array.isArray(v) ? Object.keys(v).find((kk) => pattern.test(kk) && typeof (v as any)[kk] === "string") : undefined;
      if (inner) return `${k}.${inner}`;
    }
    return undefined;
  };
  const candidates: Array<[string, any[]]> = [];
  const visit = (value: any, path: string, depth: number) => {
    if (depth > 3 || value === null || typeof value !== "object") return;
    for (const [k, v] of Object.entries(value)) {
      const at = path ? `${path}.${k}` : k;
      if (Array.isArray(v)) candidates.push([at, v]);
      else visit(v, at, depth + 1);
    }
  };
  visit(config, "", 0);
  candidates.sort(([a], [b]) => Number(b === rulesField) - Number(a === rulesField));
  for (const [field, list] of candidates) {
    const first = list.find((x) => x !== null && typeof x === "object");
    const token = fieldLike(first, /token/i, tokenField);
    const event = fieldLike(first, /event/i, eventField);
    if (field === rulesField && list.length === 0) return { field, contractField: rulesField, rules: [], token: tokenField, event: eventField };
    if (token && event) return { field, contractField: rulesField, rules: list.filter((x) => x && typeof valueAt(x, token) === "string"), token, event };
  }
  // Rules without a token-like field (the seed shows none): any list of objects naming an event, launched with what they carry.
  for (const [field, list] of candidates) {
    const rules = list.filter((x) => x !== null && typeof x === "object" && !Array.isArray(x));
    const event = fieldLike(rules[0], /event/i, eventField);
    if (event) return { field, contractField: rulesField, rules, token: null, event };
  }
  return null;
}

/** The value at a dotted path of a rule (`launch.token`). */
export const valueAt = (o: any, path: string): unknown => path.split(".").reduce((v, k) => (v === null || typeof v !== "object" ? undefined : v[k]), o);

/**
 * The launch requests to try for a rule, in order: the contract's (token and event), the same in snake_case, then the
 * rule's own fields as they are (what an implementation's rules carry is what its launch takes), in both cases.
 */
export function launchBodies(found: FoundRules, rule: any): unknown[] {
  const carried = Object.fromEntries(Object.entries(rule).filter(([, v]) => v === null || typeof v !== "object"));
  const out: unknown[] = [];
  if (found.token) out.push({ referenceId: "conformance_user", launchToken: valueAt(rule, found.token), triggerEvent: valueAt(rule, found.event) });
  if (found.token?.includes("_")) out.push({ reference_id: "conformance_user", launch_token: valueAt(rule, found.token), trigger_event: valueAt(rule, found.event) });
  out.push({ referenceId: "conformance_user", triggerEvent: valueAt(rule, found.event), ...carried }, { reference_id: "conformance_user", trigger_event: valueAt(rule, found.event), ...carried });
  return out;
}
