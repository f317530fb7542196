/** Broken metric engines for the self-test: the real engine with one formula changed, each breaking one seed statement. */
import { computeMetric as real } from "../../../../metrics/src/index.ts";

type Def = Parameters<typeof real>[0];
type Res = ReturnType<typeof real>;

/** Recomputes each variant's value from the real result (and, where needed, the real result of another definition). */
export function broken(type: string, change: (def: Def, data: Parameters<typeof real>[1], options: Parameters<typeof real>[2], result: Res) => Res) {
  return (def: Def, data: Parameters<typeof real>[1], options?: Parameters<typeof real>[2]): Res => {
    const result = real(def, data, options);
    return def.type === type ? change(def, data, options, result) : result;
  };
}

export const mapValues = (result: Res, f: (v: Res["variants"][string], name: string) => Res["variants"][string]): Res => ({
  ...result,
  variants: Object.fromEntries(Object.entries(result.variants).map(([k, v]) => [k, f(v, k)])),
});
