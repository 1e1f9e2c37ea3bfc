/**
 * Entry point of the CRE workflow (what `cre-compile` bundles and compiles to WASM). The runtime shims come first:
 * the SDK reads `globalThis.URL` while its modules evaluate.
 */
import "./shims.js";
import { Runner } from "@chainlink/cre-sdk";
import { configSchema, type WorkflowConfig, type WorkflowConfigInput } from "./config.js";
import { initWorkflow } from "./workflow.js";

export async function main(): Promise<void> {
  const runner = await Runner.newRunner<WorkflowConfig, WorkflowConfigInput>({ configSchema });
  await runner.run(initWorkflow);
}
