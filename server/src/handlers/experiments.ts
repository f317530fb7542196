/**
 * The deprecated experiments endpoint: project-level usage and per-experiment (study) interview stats
 * for every active study. The Deprecation/Sunset/Link headers are set by the router on every response.
 * Counts come from the interviews' store: kept per study as interviews change (stores/interviews.ts).
 */
import type { components } from "../../../generated/schema.d.ts";
import type { HandlerGroup } from "../http/types.ts";
import { monthStart, weekStart } from "../model/windows.ts";
import { studiesUsage } from "../views/studies.ts";
import { DEPRECATION_HEADERS } from "../http/router.ts";
import type { HandlerDeps } from "./deps.ts";

type S = components["schemas"];

export function experimentsHandlers({ clock, interviews: store, studies }: HandlerDeps): HandlerGroup<"listExperiments"> {
  return {
    async listExperiments({ project }) {
      const now = clock.now();
      const month = new Date(monthStart(now)).toISOString();
      const week = new Date(weekStart(now)).toISOString();
      const report = await store.report(project, week, month);
      const active = await studies.active(project);
      const usages = await studiesUsage(store, project, active, now);
      const data: S["ExperimentStats"][] = active.map((study, n) => {
        const c = report.byStudy.get(study.id);
        const interviews = { total: c?.total ?? 0, started: c?.started ?? 0, processing: c?.processing ?? 0, completed: c?.completed ?? 0 };
        const quality = { insightful: c?.insightful ?? 0, successful: c?.successful ?? 0, unsuccessful: c?.unsuccessful ?? 0 };
        const usage = usages[n];
        return {
          id: study.id,
          object: "experiment",
          name: study.name,
          interview_link: study.interview_link,
          accepting_responses: usage.accepting_responses,
          limits: usage.limits,
          interviews,
          quality,
        };
      });
      return {
        status: 200,
        headers: DEPRECATION_HEADERS,
        body: {
          object: "experiments_report",
          usage: { interviews_this_month: report.month, interviews_this_week: report.week, interviews_total: report.total },
          data,
        },
      };
    },
  };
}
