/** Studies: the list shows active studies; retrieval shows any study of the project. */
import { notFound } from "../http/errors.ts";
import type { HandlerGroup } from "../http/types.ts";
import { studyOrder } from "../model/project.ts";
import { studyDetail, studySummary } from "../views/studies.ts";
import type { HandlerDeps } from "./deps.ts";
import { envelope, listPage } from "./pagination.ts";

export function studiesHandlers({ clock }: HandlerDeps): HandlerGroup<"listStudies" | "getStudy"> {
  return {
    listStudies({ project, query }) {
      const now = clock.now();
      const page = listPage({
        sorted: project.activeStudies,
        order: studyOrder,
        limit: query.limit,
        startingAfter: query.starting_after,
        lookup: (id) => project.studies.get(id),
        filter: (s) => s.status === "active",
        noun: "study",
      });
      return { status: 200, body: envelope(page, (s) => studySummary(project, s, now)) };
    },

    getStudy({ project, path }) {
      const study = project.studies.get(path.id);
      if (!study) throw notFound(`No such study: ${path.id}`);
      return { status: 200, body: studyDetail(project, study, clock.now()) };
    },
  };
}
