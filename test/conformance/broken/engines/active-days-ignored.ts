// Events per user per active day ignores the active days (it is events per user).
import { broken } from "./wrap.ts";
import { computeMetric as real } from "../../../../metrics/src/index.ts";
export const computeMetric = broken("events_per_user_per_active_day", (def, data, options) => real({ type: "events_per_user", event: def.event, ...("window_days" in def && def.window_days !== undefined ? { window_days: def.window_days } : {}) } as any, data, options));
