/**
 * Runs one reference agent until SIGINT/SIGTERM. Prints the bound URL (one line) on stdout; logs go to stderr.
 *
 *   npx tsx agents/reference/main.ts --port 0 --persona analyst
 *   OPENAI_BASE_URL=http://127.0.0.1:11434/v1 CRESOLVER_AGENT_MODEL=llama3.1 \
 *     npx tsx agents/reference/main.ts --mode llm --port 8080
 *
 * Flags: --host (127.0.0.1), --port (0 = ephemeral), --persona (analyst|skeptic|contrarian|optimist),
 * --name, --mode (offline|llm), --log-level (info). LLM mode reads OPENAI_BASE_URL, OPENAI_API_KEY and
 * CRESOLVER_AGENT_MODEL from the environment. The full CLI is `cresolver agent serve` (issue 5).
 */
import { parseArgs } from "node:util";
import { pino, destination } from "pino";
import { isPersonaName } from "./engine/personas.js";
import { PERSONAS } from "../kit/answer-engine.js";
import { createReferenceAgent } from "./server.js";
import { LOG_REDACT_PATHS } from "../../workflow/util/redact.js";

const USAGE = `usage: tsx agents/reference/main.ts [--host 127.0.0.1] [--port 0] [--persona ${PERSONAS.join("|")}] [--name NAME] [--mode offline|llm] [--log-level info]`;

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n${USAGE}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        host: { type: "string", default: "127.0.0.1" },
        port: { type: "string", default: "0" },
        persona: { type: "string", default: "analyst" },
        name: { type: "string" },
        mode: { type: "string", default: "offline" },
        "log-level": { type: "string", default: "info" },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    fail((err as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const port = Number(values.port);
  if (!/^[0-9]+$/.test(values.port) || port > 65_535)
    fail(`--port must be an integer in 0..65535, got "${values.port}"`);
  if (!isPersonaName(values.persona)) fail(`--persona must be one of ${PERSONAS.join(", ")}, got "${values.persona}"`);
  if (values.mode !== "offline" && values.mode !== "llm") fail(`--mode must be offline or llm, got "${values.mode}"`);
  const model = process.env.CRESOLVER_AGENT_MODEL;
  if (values.mode === "llm" && (!model || model.trim() === ""))
    fail("--mode llm needs CRESOLVER_AGENT_MODEL (and OPENAI_BASE_URL / OPENAI_API_KEY as the endpoint requires)");

  const logger = pino({ level: values["log-level"], redact: [...LOG_REDACT_PATHS] }, destination(2));
  const agent = createReferenceAgent({
    persona: values.persona,
    name: values.name,
    mode: values.mode,
    llm:
      values.mode === "llm"
        ? {
            model: model as string,
            baseURL: process.env.OPENAI_BASE_URL || undefined,
            apiKey: process.env.OPENAI_API_KEY || undefined,
          }
        : undefined,
    logger,
  });
  const url = await agent.start({ host: values.host, port });
  process.stdout.write(`${url}\n`);
  logger.info({ url, ...agent.info }, "reference agent ready");

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, "shutting down");
    const force = setTimeout(() => process.exit(1), 5_000);
    force.unref();
    agent.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
