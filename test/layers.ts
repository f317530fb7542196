/**
 * The test layers, each named for what it proves. `npm test` is every test file not named here: the type check, unit
 * tests and tests that talk HTTP to one in-process app, in minutes. Each named layer is a vitest config of its own
 * (vitest.<layer>.config.ts) and a script (`npm run test:<layer>`); `npm run test:all` runs them all
 * (scripts/test/all.sh says which run alone and which side by side), and .ci/run runs test:all. A test file belongs to
 * exactly one layer (test/layers.test.ts holds it to that).
 */
export interface Layer {
  /** The files it runs (globs from the repository root). */
  files: string[];
  /** What it proves, for the README's table. */
  proves: string;
  /** What it needs beyond `npm install`, installed by the project's own scripts. */
  needs: string;
}

export const LAYERS = {
  processes: {
    files: [
      "server/test/slowloris.test.ts", "server/test/restart.test.ts", "server/test/shutdown.test.ts", "server/test/client-loop.test.ts", "server/test/memory.test.ts",
      "server/test/start.test.ts", "server/test/webhooks-burst.test.ts", "server/test/readme-examples.test.ts", "server/test/log-levels.test.ts", "server/mock/test/mock.test.ts",
      "sdk/test/sdk.test.ts", "docs/test/docs.test.ts", "mobile/test/web-browser.test.ts", "mobile/test/timeout-under-gc.test.ts", "receiver/test/web.test.ts",
      "metrics/test/metrics-cli.test.ts", "metrics/test/metrics-cli-numbers.test.ts", "test/conformance/prism.test.ts", "bench/test/against.test.ts",
      "test/build/build-package.test.ts",
    ],
    proves: "the commands as people run them, as real processes: the sandbox's start, signals, restarts with kill -9, slow clients and memory under load; Prism; the API reference page and the web client in Chromium; the receiver's examples; the metrics command on every kind of input; a package's build skipped only while nothing it was built from changed",
    needs: "Chromium (Debian's, installed by scripts/docs/install-chromium.sh)",
  },
  conformance: {
    files: ["test/conformance/selftest.test.ts", "test/conformance/no-litter.test.ts", "test/conformance/surfaces.test.ts", "test/conformance/foreign.test.ts", "test/conformance/cover.test.ts", "test/conformance/variants-*.test.ts", "test/proxy/proxy.test.ts", "test/proxy/proxy-command.test.ts"],
    proves: "the conformance suite judges servers it was not written alongside: the reference server, every broken variant against the rule that must catch it, simulation surfaces of several ages and none, and ../shared/foreign (an implementation from the seed alone) through its states module; the contract-checking proxy between real clients and the reference server, its broken variants and broken upstreams, in process and as the command",
    needs: "../shared/foreign beside the repository",
  },
  foreign: {
    // Nine minutes at 2% of one core (13.9 s user, 1.6 s system over 540 s): it waits on the seed's own timings, so it
    // runs beside every other layer (a lane of its own in scripts/test/all.sh), where the load moves nothing
    // it judges (its windows are seconds wide: a fifth of a 1-minute delay).
    // The proxy's file (half a minute of both cores) runs in the other worker from the start, while `npm test` builds
    // and type-checks on one core: off the conformance layer, which bounds the last lane.
    // The allowed copy's run (the same nine minutes of waiting) takes the proxy's worker once the proxy's file is done.
    files: ["test/conformance/foreign-default.test.ts", "test/proxy/proxy-foreign.test.ts", "test/conformance/foreign-allowed.test.ts"],
    proves: "what an implementer sees with the defaults: ../shared/foreign at its own timings (the seed's retry schedule of 10 s, 1 min and 5 min, its 10 s receiver timeout) and the suite with no budget or time flag exit 0: every check, the covering phase with every class reached, the model's 20 sequences and the whole retry schedule; so does a copy of it making, at once, every other choice the seed leaves open that test/conformance/foreign/allowed.ts lists (an interview list that needs study_id, other orders, nested error bodies, 400s the seed allows); the contract-checking proxy in front of ../shared/foreign, finding nothing on it and each of 63 seed violations planted in a copy, and the retry schedule of deliveries a receiver fails (a retry too many, a delay of the wrong slot, none at all)",
    needs: "../shared/foreign beside the repository",
  },
  packages: {
    files: ["test/package/**/*.test.ts"],
    proves: "every tarball installed alone in a fresh project with strict types, fresh React Native apps, and the typed client on Node 20, 22, 24 and 26 under forced garbage collection",
    needs: "the npm registry",
  },
  stores: {
    // The database's own tests run here, not in the timing-sensitive cluster layer: they wait for outcomes (30 s
    // bounds), never time them, so they run after the soak in a lane beside the busy one (scripts/test/all.sh).
    files: ["server/test/cluster/stores.test.ts", "server/test/cluster/database.test.ts", "server/test/cluster/tables.test.ts", "server/test/cluster/delivery-core-pg.test.ts"],
    proves: "the same behaviour tests and the conformance suite's full run over every store: memory, SQLite and PostgreSQL; every resource in PostgreSQL's tables (held by no process, a transition made once, the planted quota in four rows per tenant (passing the cap by at most the plants in flight, never making them all wait on one row), the project quota one row per tenant, fault settings one row every request reads, created projects, webhooks, listener secrets and forwards read through either process, the stream numbered by one row per project and sent to listeners on every process, a change's statements sent with its COMMIT, a study's caps under racing processes, an older database's log moved in, a team given every turn on a process while another team is served on another process, the live processes counted); PostgreSQL crashed and restarted under writes on three processes, and ten processes within its default connection limit; the delivery core's cases over PostgreSQL's attempt queue, to the millisecond on a manual clock",
    needs: "PostgreSQL (Debian's, installed by scripts/deploy/install-postgresql.sh)",
  },
  cluster: {
    files: ["server/test/cluster/cluster.test.ts", "server/test/cluster/compose.test.ts"],
    proves: "several sandbox processes on one PostgreSQL: reads across processes, one delivery per event, no lock over a tenant (a tenant waiting on its own row holds nothing another needs), claims of each tenant's deliveries apart, a refused change nowhere, timers as rows, the compose file's services behind nginx",
    needs: "PostgreSQL and nginx (Debian's, installed by scripts/deploy/install-postgresql.sh)",
  },
  soak: {
    // Five minutes of kills and light writes (about 80 s of CPU over seven minutes), judged with the stalls it measures
    // (a retry may be late by as long as a process left a read unanswered meanwhile): it runs from the start of
    // scripts/test/all.sh beside the other lanes, not in the cluster layer at the end, whose lane it made the longest.
    files: ["server/test/cluster/soak.test.ts"],
    proves: "three sandbox processes on one PostgreSQL through five minutes of kill -9 under writes of two tenants (one receiver slow and failing): nothing acknowledged lost, every retry on its schedule, nothing delivered again after a 2xx, the event stream and api-sandbox listen through nginx missing and repeating nothing, the other tenant's deliveries within the seed's time",
    needs: "PostgreSQL and nginx (Debian's, installed by scripts/deploy/install-postgresql.sh)",
  },
} satisfies Record<string, Layer>;

export type LayerName = keyof typeof LAYERS;

/** Every file a named layer runs: what `npm test` leaves out. */
export const NAMED = Object.values(LAYERS).flatMap((l) => l.files);
