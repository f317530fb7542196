// Events per user divides by the users who fired the event, not by everyone exposed (not zero-filled).
import { broken, mapValues } from "./wrap.ts";
import { computeMetric as real } from "../../../../metrics/src/index.ts";
export const computeMetric = broken("events_per_user", (def, data, options, result) => {
  const fired = real({ ...def, type: "conversion" } as any, data, options);
  return mapValues(result, (v, name) => {
    const participants = fired.variants[name]?.numerator ?? 0;
    return { ...v, denominator: participants, value: participants ? v.numerator / participants : v.value };
  });
});
