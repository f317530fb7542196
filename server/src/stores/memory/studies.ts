/** Studies kept in the process (memory and SQLite): each project's map and sorted list of active studies. */
import type { StoredStudy } from "../../../../fixtures/types.ts";
import { listPage } from "../../handlers/pagination.ts";
import type { Query } from "../../http/types.ts";
import { studyOrder, type Project } from "../../model/project.ts";
import type { ChangeLog } from "../backend.ts";
import type { Studies } from "../studies.ts";

export class MemoryStudies implements Studies {
  constructor(private readonly backend: ChangeLog) {}

  async get(project: Project, id: string): Promise<StoredStudy | undefined> {
    return project.studies.get(id);
  }

  async list(project: Project, query: Query<"listStudies">) {
    return listPage({
      sorted: project.activeStudies,
      order: studyOrder,
      limit: query.limit,
      startingAfter: query.starting_after,
      lookup: (id) => project.studies.get(id),
      filter: (s) => s.status === "active",
      noun: "study",
    });
  }

  async active(project: Project): Promise<StoredStudy[]> {
    return project.activeStudies;
  }

  async plant(project: Project, study: StoredStudy): Promise<void> {
    this.backend.append({ kind: "study.planted", study });
    project.plantStudy(study);
  }

  async setStatus(project: Project, id: string, status: StoredStudy["status"]): Promise<void> {
    this.backend.append({ kind: "study.changed", project_id: project.id, id, status });
    project.setStudyStatus(id, status);
  }
}
