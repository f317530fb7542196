/** Releases kept in the process (memory and SQLite): each project's map and list sorted newest `merged_at` first. */
import type { StoredRelease } from "../../../../fixtures/types.ts";
import { listPage } from "../../handlers/pagination.ts";
import type { Query } from "../../http/types.ts";
import { releaseOrder, type Project } from "../../model/project.ts";
import type { ChangeLog } from "../backend.ts";
import type { Releases } from "../releases.ts";

export class MemoryReleases implements Releases {
  constructor(private readonly backend: ChangeLog) {}

  async list(project: Project, query: Query<"listReleases">) {
    const status = query.status;
    return listPage({
      sorted: project.releaseList,
      order: releaseOrder,
      limit: query.limit,
      startingAfter: query.starting_after,
      lookup: (id) => project.releases.get(id),
      filter: status === undefined ? undefined : (r) => r.status === status,
      noun: "release",
    });
  }

  async get(project: Project, id: string) {
    return project.releases.get(id);
  }

  async plant(project: Project, release: StoredRelease): Promise<void> {
    this.backend.append({ kind: "release.planted", release });
    project.plantRelease(release);
  }
}
