/**
 * The deprecated experiments endpoint: project-level usage and per-experiment (study) interview stats
 * for every active study. The Deprecation/Sunset/Link headers are set by the router on every response.
 */
import type { components } from "../../../generated/schema.d.ts";
import type { HandlerGroup } from "../http/types.ts";
import { monthStart, weekStart } from "../store/windows.ts";
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
      let thisMonth = 0;
      let thisWeek = 0;
      for (const i of project.interviewList) {
        if (i.created_at < month && i.created_at < week) break; // newest first: nothing older can count
        if (i.created_at >= month) thisMonth++;
        if (i.created_at >= week) thisWeek++;
      }
      const data: S["ExperimentStats"][] = project.activeStudies.map((study) => {
        const interviews = { total: 0, started: 0, processing: 0, completed: 0 };
        const quality = { insightful: 0, successful: 0, unsuccessful: 0 };
        for (const i of project.interviewsByStudy.get(study.id) ?? []) {
          interviews.total++;
          interviews[i.status]++;
          if (i.status === "completed" && i.quality_score) quality[i.quality_score]++;
        }
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
