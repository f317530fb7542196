/** Studies: the list shows active studies; retrieval shows any study of the project. */
import { notFound } from "../http/errors.ts";
import type { HandlerGroup } from "../http/types.ts";
import { studiesUsage, studyDetail, studySummary } from "../views/studies.ts";
import type { HandlerDeps } from "./deps.ts";

export function studiesHandlers({ clock, interviews, studies }: HandlerDeps): HandlerGroup<"listStudies" | "getStudy"> {
  return {
    async listStudies({ project, query }) {
      const now = clock.now();
      const page = await studies.list(project, query);
      const usage = await studiesUsage(interviews, project, page.data, now);
      return { status: 200, body: { object: "list", data: page.data.map((s, n) => studySummary(s, usage[n])), has_more: page.has_more } };
    },

    async getStudy({ project, path }) {
      const study = await studies.get(project, path.id);
      if (!study) throw notFound(`No such study: ${path.id}`);
      return { status: 200, body: await studyDetail(interviews, project, study, clock.now()) };
    },
  };
}
