/** Interviews: filters combine with AND; the store finds the page (stores/interviews.ts). */
import { notFound } from "../http/errors.ts";
import type { HandlerGroup } from "../http/types.ts";
import { interviewDetail, interviewSummary } from "../views/interviews.ts";
import type { HandlerDeps } from "./deps.ts";
import { envelope } from "./pagination.ts";

export function interviewsHandlers({ interviews }: HandlerDeps): HandlerGroup<"listInterviews" | "getInterview"> {
  return {
    async listInterviews({ project, query }) {
      return { status: 200, body: envelope(await interviews.list(project, query), interviewSummary) };
    },

    async getInterview({ project, path }) {
      const interview = await interviews.get(project, path.id);
      if (!interview) throw notFound(`No such interview: ${path.id}`);
      return { status: 200, body: interviewDetail(interview) };
    },
  };
}
