/**
 * The deprecated experiments endpoint: project-level usage and per-experiment (study) interview stats
 * for every active study. The Deprecation/Sunset/Link headers are set by the router on every response.
 * O(studies x log interviews): counts are kept per study as interviews change, windows found by binary search.
 */
import type { components } from "../../../generated/schema.d.ts";
import type { HandlerGroup } from "../http/types.ts";
import { createdSince, monthStart, weekStart } from "../model/windows.ts";
import { studyUsage } from "../views/studies.ts";
import { DEPRECATION_HEADERS } from "../http/router.ts";
import type { HandlerDeps } from "./deps.ts";

type S = components["schemas"];

export function experimentsHandlers({ clock }: HandlerDeps): HandlerGroup<"listExperiments"> {
  return {
    listExperiments({ project }) {
      const now = clock.now();
      const month = new Date(monthStart(now)).toISOString();
      const week = new Date(weekStart(now)).toISOString();
      // The list is newest first: the interviews created since an instant are a prefix, found by binary search.
      const thisMonth = createdSince(project.interviewList, month);
      const thisWeek = createdSince(project.interviewList, week);
      const data: S["ExperimentStats"][] = project.activeStudies.map((study) => {
        const c = project.studyCounts.get(study.id);
        const interviews = { total: c?.total ?? 0, started: c?.started ?? 0, processing: c?.processing ?? 0, completed: c?.completed ?? 0 };
        const quality = { insightful: c?.insightful ?? 0, successful: c?.successful ?? 0, unsuccessful: c?.unsuccessful ?? 0 };
        const usage = studyUsage(project, study, now);
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
          usage: { interviews_this_month: thisMonth, interviews_this_week: thisWeek, interviews_total: project.interviewList.length },
          data,
        },
      };
    },
  };
}
