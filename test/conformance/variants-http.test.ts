// Broken variants over plain HTTP (everything but webhook delivery and metrics): each must be caught by its rule.
import { variants } from "./broken/variants.ts";
import { describeVariants } from "./variant-runner.ts";

describeVariants("broken variants over HTTP", variants().filter((v) => !["webhooks", "retries", "metrics", "model"].includes(v.caughtBy)));
