// What an implementer sees with the defaults: ../shared/foreign (written from the seed alone) at its own timings and
// the suite with no budget or time flag, as its README says to run it (foreign/default-run.ts). The run must exit 0:
// every check, the covering phase with every class reached, the model's 20 sequences and the whole retry schedule (it
// runs beside the others, in a project of its own).
import { it } from "vitest";
import { expectDefaultRunPasses } from "./foreign/default-run.ts";

it("exits 0 with the default flags at the server's own timings: no failure, nothing NOT TESTED, every class reached, 20 sequences, the whole schedule", async () => {
  await expectDefaultRunPasses();
}, 1_200_000);
