import { Command, Option } from "commander";
import { registerAgent, setAgentWallet } from "../../workflow/chain/actions.js";
import {
  buildRegistrationFile,
  checkHttpEndpoint,
  encodeRegistrationDataUri,
  isRegistrationError,
} from "../../workflow/registration/index.js";
import { isPersonaName } from "../../agents/reference/engine/personas.js";
import { PERSONAS } from "../../agents/kit/answer-engine.js";
import { AGENT_HANDLERS } from "../../protocols/index.js";
import type { AgentAuth } from "../../protocols/shared/agent-types.js";
import {
  AGENT_ENV,
  AUTH_FLAG,
  parseAgentIdFlag,
  parseUrlFlag,
  readAgentSecrets,
  readSigningKey,
  type SecretFlags,
} from "../shared/agent-auth.js";
import { checkCommand } from "./agent-check.js";
import { agentInspectCommands } from "./inspect.js";
import { ENV, parseAgentUri, parsePrivateKey, parseUint } from "../shared/config.js";
import { CliError } from "../shared/errors.js";
import { hostOption, portOption } from "../shared/options.js";
import type { Runtime } from "../shared/runtime.js";
import { LOG_REDACT_PATHS } from "../../workflow/util/redact.js";
import { describedCommand, HELP_TEXT } from "./help-text.js";

const PROTOCOL = /^[a-z0-9][a-z0-9._-]{0,63}$/;

function register(runtime: () => Runtime): Command {
  return describedCommand("agent register")
    .option("--name <name>", "agent name")
    .option("--endpoint <url>", "the worker's base URL (http or https), e.g. http://127.0.0.1:8080")
    .addOption(
      new Option("--protocol <name>", "worker protocol served at the endpoint (one the resolver speaks)")
        .choices(Object.keys(AGENT_HANDLERS))
        .default("cresolver"),
    )
    .option("--description <text>", "free-text description")
    .option("--uri <uri>", "register this https://, ipfs:// or data: URI instead of building one")
    .action(
      async (opts: { name?: string; endpoint?: string; protocol: string; description?: string; uri?: string }) => {
        const rt = runtime();
        rt.requireKey();
        let uri: string;
        if (opts.uri !== undefined) {
          if (opts.name !== undefined || opts.endpoint !== undefined || opts.description !== undefined)
            throw new CliError("give either --uri or --name/--endpoint/--description, not both");
          uri = parseAgentUri(opts.uri);
        } else {
          if (opts.name === undefined || opts.name.trim() === "")
            throw new CliError("--name is required (or give --uri)");
          if (opts.endpoint === undefined) throw new CliError("--endpoint is required (or give --uri)");
          const endpoint = checkHttpEndpoint(opts.endpoint);
          if (!endpoint.ok) throw new CliError(`--endpoint ${endpoint.reason}: "${opts.endpoint.slice(0, 60)}"`);
          if (!PROTOCOL.test(opts.protocol))
            throw new CliError(
              `--protocol must be a lower-case protocol name like cresolver, got "${opts.protocol.slice(0, 40)}"`,
            );
          try {
            uri = encodeRegistrationDataUri(
              buildRegistrationFile({
                name: opts.name,
                endpoint: opts.endpoint,
                protocol: opts.protocol,
                ...(opts.description !== undefined ? { description: opts.description } : {}),
              }),
            );
          } catch (error) {
            if (isRegistrationError(error)) throw new CliError(`registration file: ${error.message}`);
            throw error;
          }
        }
        const identity = await rt.identityAddress();
        const ctx = await rt.chain({ needsKey: true });
        const r = await registerAgent(ctx, identity, uri);
        rt.emit(
          {
            agentId: r.agentId,
            owner: r.owner,
            identityRegistry: identity,
            agentURI: uri,
            txHash: r.txHash,
            blockNumber: r.blockNumber,
          },
          `registered agent ${r.agentId} (owner ${r.owner}) in ${identity}\n  tx ${r.txHash}`,
        );
      },
    );
}

function setWallet(runtime: () => Runtime): Command {
  return new Command("set-wallet")
    .description(
      `Bind a wallet to an agent (EIP-712 AgentWalletSet signed by the new wallet's key, sent by the agent's owner). The wallet can then join markets for the agent. The wallet key comes from --wallet-key or ${ENV.walletKey}.`,
    )
    .argument("<agentId>", "the agent")
    .option("--wallet-key <hex>", `private key of the wallet to bind (default: ${ENV.walletKey})`)
    .action(async (agentIdArg: string, opts: { walletKey?: string }) => {
      const rt = runtime();
      const agentId = parseUint(agentIdArg, "agentId");
      rt.requireKey();
      const walletKey = parsePrivateKey(opts.walletKey ?? rt.io.env[ENV.walletKey], `--wallet-key / ${ENV.walletKey}`);
      if (!walletKey) throw new CliError(`give the new wallet's key with --wallet-key or ${ENV.walletKey}`);
      const identity = await rt.identityAddress();
      const ctx = await rt.chain({ needsKey: true });
      const r = await setAgentWallet(ctx, identity, agentId, walletKey);
      rt.emit(
        {
          agentId,
          wallet: r.wallet,
          deadline: r.deadline,
          identityRegistry: identity,
          txHash: r.txHash,
          blockNumber: r.blockNumber,
        },
        `agent ${agentId} wallet set to ${r.wallet}\n  tx ${r.txHash}`,
      );
    });
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

interface ServeOptions extends SecretFlags {
  protocol: string;
  persona: string;
  mode: "offline" | "llm";
  port: number;
  host: string;
  name?: string;
  logLevel: string;
  jwksUrl?: string;
  agentId?: string;
  agoraStreamUrl?: string;
}

function serve(runtime: () => Runtime): Command {
  const protocols = Object.keys(AGENT_HANDLERS);
  return new Command("serve")
    .summary("run the reference worker agent for any protocol")
    .description(
      `Run the reference worker agent for any protocol (${protocols.join(", ")}) until SIGINT/SIGTERM. Prints the bound URL and the endpoint to register. ` +
        `Secrets come from environment variables: --bearer-token-env / --hmac-secret-env name the variable (default ${AGENT_ENV.bearerToken} / ${AGENT_ENV.hmacSecret}). ` +
        "LLM mode reads OPENAI_BASE_URL, OPENAI_API_KEY, CRESOLVER_AGENT_MODEL.",
    )
    .addOption(new Option("--protocol <name>", "wire protocol to serve").choices(protocols).default("cresolver"))
    .addOption(new Option("--persona <name>", "answer persona").choices([...PERSONAS]).default("analyst"))
    .addOption(new Option("--mode <mode>", "answer engine").choices(["offline", "llm"]).default("offline"))
    .addOption(portOption(0))
    .addOption(hostOption())
    .option("--name <name>", "name reported by /health")
    .option("--log-level <level>", "pino log level (logs go to stderr)", "info")
    .option(
      "--bearer-token-env <VAR>",
      `environment variable holding the bearer token the platform must send (factagora; optional for others) (default ${AGENT_ENV.bearerToken})`,
    )
    .option(
      "--hmac-secret-env <VAR>",
      `environment variable holding the HMAC secret (ai-olympics) (default ${AGENT_ENV.hmacSecret})`,
    )
    .option(
      "--jwks-url <url>",
      "JWKS URL of the platform whose JWTs the agent accepts (agora), e.g. http://127.0.0.1:8090/.well-known/jwks.json",
    )
    .option(
      "--signing-key-env <VAR>",
      `environment variable holding the key the agent signs its cresolver answers with, its ERC-8004 agentWallet or owner (default ${AGENT_ENV.signingKey}; unset: answers go unsigned, i.e. attested)`,
    )
    .option("--agent-id <id>", "the agent's ERC-8004 id (agora: tokens must name it; cresolver: signs only for it)")
    .option(
      "--agora-stream-url <url>",
      "ws:// or wss:// base URL of the platform's event stream (agora; events are streamed when set)",
    )
    .action(async (opts: ServeOptions) => {
      const rt = runtime();
      if (!isPersonaName(opts.persona)) throw new CliError(`--persona must be one of ${PERSONAS.join(", ")}`);
      if (!LOG_LEVELS.includes(opts.logLevel))
        throw new CliError(`--log-level must be fatal, error, warn, info, debug, trace or silent`);
      const module = AGENT_HANDLERS[opts.protocol];
      if (module === undefined) throw new CliError(`--protocol must be one of ${protocols.join(", ")}`);
      const secrets = readAgentSecrets(rt.io.env, opts);
      const auth: AgentAuth = {
        ...secrets,
        ...(opts.jwksUrl !== undefined
          ? { jwksUrl: parseUrlFlag(opts.jwksUrl, "--jwks-url", ["http:", "https:"]).toString() }
          : {}),
      };
      const agentId = parseAgentIdFlag(opts.agentId);
      const signingKey = readSigningKey(rt.io.env, opts);
      const agoraStreamUrl =
        opts.agoraStreamUrl !== undefined
          ? parseUrlFlag(opts.agoraStreamUrl, "--agora-stream-url", ["ws:", "wss:"]).toString().replace(/\/+$/, "")
          : undefined;
      if (module.requiredAuth !== undefined && auth[module.requiredAuth] === undefined) {
        throw new CliError(`protocol ${opts.protocol} needs ${AUTH_FLAG[module.requiredAuth]}`);
      }
      const model = rt.io.env.CRESOLVER_AGENT_MODEL;
      if (opts.mode === "llm" && (!model || model.trim() === ""))
        throw new CliError(
          "--mode llm needs CRESOLVER_AGENT_MODEL (and OPENAI_BASE_URL / OPENAI_API_KEY as the endpoint requires)",
        );
      // The agent server (fastify, pino) loads only when this command runs: every other command starts faster.
      const [{ pino, destination }, { createReferenceAgent }] = await Promise.all([
        import("pino"),
        import("../../agents/reference/server.js"),
      ]);
      const logger = pino({ level: opts.logLevel, redact: [...LOG_REDACT_PATHS] }, destination(2));
      const agent = createReferenceAgent({
        protocol: opts.protocol,
        persona: opts.persona,
        mode: opts.mode,
        name: opts.name,
        ...(opts.mode === "llm"
          ? {
              llm: {
                model: model as string,
                ...(rt.io.env.OPENAI_BASE_URL ? { baseURL: rt.io.env.OPENAI_BASE_URL } : {}),
                ...(rt.io.env.OPENAI_API_KEY ? { apiKey: rt.io.env.OPENAI_API_KEY } : {}),
              },
            }
          : {}),
        ...(Object.keys(auth).length > 0 ? { auth } : {}),
        agentId,
        agoraStreamUrl,
        ...(signingKey !== undefined ? { signingKey } : {}),
        logger,
      });
      // Registration errors (a protocol refusing its configuration) are bad input; listen errors are not.
      try {
        await agent.app.ready();
      } catch (error) {
        await agent.close().catch(() => undefined);
        throw new CliError(`protocol ${opts.protocol}: ${error instanceof Error ? error.message : String(error)}`);
      }
      let url: string;
      try {
        url = await agent.start({ host: opts.host, port: opts.port });
      } catch (error) {
        await agent.close().catch(() => undefined);
        const code = (error as NodeJS.ErrnoException).code;
        throw new CliError(
          `cannot listen on ${opts.host}:${opts.port}: ${code ?? (error instanceof Error ? error.message : String(error))}`,
          1,
        );
      }
      const endpoint = `${url}${module.endpointPath ?? ""}`;
      rt.emit(
        {
          url,
          endpoint,
          protocol: agent.info.protocol,
          persona: agent.info.persona,
          mode: agent.info.mode,
          name: agent.info.name,
        },
        `${url}\nendpoint ${endpoint} (protocol ${agent.info.protocol}, ${agent.info.persona}, ${agent.info.mode}): register it with \`cresolver agent register --endpoint ${endpoint} --protocol ${agent.info.protocol}\``,
      );
      await new Promise<void>((resolveStop) => {
        const signal = rt.io.signal;
        let stopping = false;
        const stop = (reason: string) => {
          // SIGINT both aborts the signal (main.ts) and reaches this listener: stop once.
          if (stopping) return;
          stopping = true;
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          signal?.removeEventListener("abort", onAbort);
          logger.info({ signal: reason }, "shutting down");
          const force = setTimeout(() => process.exit(1), 5_000);
          force.unref();
          void agent.close().then(() => {
            clearTimeout(force);
            resolveStop();
          });
        };
        const onAbort = () => stop("abort");
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
        if (signal?.aborted) stop("abort");
        else signal?.addEventListener("abort", onAbort, { once: true });
      });
    });
}

export function agentCommand(runtime: () => Runtime): Command {
  const cmd = new Command("agent").description(HELP_TEXT["agent agent"]);
  for (const sub of agentInspectCommands(runtime)) cmd.addCommand(sub);
  return cmd
    .addCommand(register(runtime))
    .addCommand(setWallet(runtime))
    .addCommand(serve(runtime))
    .addCommand(checkCommand(runtime));
}
