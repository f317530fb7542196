// Broken variants of webhook delivery and of the metric engines: each must be caught by its rule.
import { variants } from "./broken/variants.ts";
import { describeVariants } from "./variant-runner.ts";

describeVariants("broken variants of deliveries and metrics", variants().filter((v) => ["webhooks", "retries", "metrics", "model"].includes(v.caughtBy)), true);
