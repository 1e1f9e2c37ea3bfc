/**
 * `cresolver agent check <url> --protocol <p>`: runs the protocol's conformance checker
 * (protocols/<name>/conformance.ts) against an agent and reports violations, warnings and response times.
 * Exit 0 when there is no violation, 1 when there is one (the report is still printed), 2 on bad input.
 */
import { Command, Option } from "commander";
import { AGENT_HANDLERS } from "../../protocols/index.js";
import type { AgentAuth } from "../../protocols/shared/agent-types.js";
import { CONFORMANCE_CHECKERS, type ConformanceReport, type ConformanceRunOptions } from "../../protocols/index.js";
import { classifyAddress, createSafeHttpClient } from "../../workflow/http/index.js";
import {
  AGENT_ENV,
  AUTH_FLAG,
  parseAgentIdFlag,
  parsePortFlag,
  parseUrlFlag,
  readAgentSecrets,
  startCheckSigner,
  type CheckSigner,
  type SecretFlags,
} from "../shared/agent-auth.js";
import { CliError } from "../shared/errors.js";
import { allowLoopbackOption, allowPrivateOption, localAddressPolicy } from "../shared/options.js";
import type { Runtime } from "../shared/runtime.js";

interface CheckOptions extends SecretFlags {
  protocol?: string;
  agentId?: string;
  jwksPort: string;
  signingKeyFile?: string;
  allowLoopback?: boolean;
  allowPrivate?: boolean;
  timeoutMs?: string;
}

const MAX_TIMEOUT_MS = 600_000;

function renderReport(report: ConformanceReport): string {
  const violations = report.findings.filter((f) => f.severity === "violation");
  const warnings = report.findings.filter((f) => f.severity === "warning");
  const lines = [
    `${report.protocol} conformance of ${report.url}: ${report.passed ? "PASS" : "FAIL"} (${violations.length} violation(s), ${warnings.length} warning(s))`,
  ];
  const width = Math.max(0, ...report.findings.map((f) => f.rule.length));
  if (violations.length > 0)
    lines.push("violations:", ...violations.map((f) => `  ${f.rule.padEnd(width)}  ${f.message}`));
  if (warnings.length > 0) lines.push("warnings:", ...warnings.map((f) => `  ${f.rule.padEnd(width)}  ${f.message}`));
  const names = Object.keys(report.timings);
  if (names.length > 0) {
    const w = Math.max(...names.map((n) => n.length));
    lines.push("response times:", ...names.map((n) => `  ${n.padEnd(w)}  ${report.timings[n]} ms`));
  }
  return lines.join("\n");
}

export function checkCommand(runtime: () => Runtime): Command {
  const protocols = Object.keys(CONFORMANCE_CHECKERS);
  return new Command("check")
    .summary("check an agent against its protocol's spec (exit 1 on a violation)")
    .description(
      "Check an agent against its protocol's spec: sends the protocol's sample requests and bad-auth requests, reports every violation (rule id + message), quality warnings and response times. " +
        "Exit 0 without violations, 1 with any, 2 on bad input. " +
        `Secrets come from environment variables: --bearer-token-env / --hmac-secret-env name the variable (default ${AGENT_ENV.bearerToken} / ${AGENT_ENV.hmacSecret}). ` +
        "agora: sample tokens are signed with an ephemeral ES256 key (or --signing-key-file) whose JWKS is served on 127.0.0.1:--jwks-port during the check; start the agent with --jwks-url pointing there.",
    )
    .argument(
      "<url>",
      "the agent's endpoint as registered (cresolver: base URL; factagora, ai-olympics: the webhook URL; agora: the AAP endpoint, e.g. …/agora)",
    )
    .addOption(new Option("--protocol <name>", "the agent's protocol").choices(protocols).makeOptionMandatory())
    .option(
      "--bearer-token-env <VAR>",
      `environment variable holding the agent's bearer token (factagora) (default ${AGENT_ENV.bearerToken})`,
    )
    .option(
      "--hmac-secret-env <VAR>",
      `environment variable holding the agent's HMAC secret (ai-olympics) (default ${AGENT_ENV.hmacSecret})`,
    )
    .option("--agent-id <id>", "the agent's ERC-8004 id, put in agora tokens (default 1)")
    .option("--jwks-port <n>", "agora: loopback port for the check's JWKS (0 = ephemeral)", "0")
    .option(
      "--signing-key-file <file>",
      "agora: private JWK (ES256 or Ed25519) to sign with instead of an ephemeral key; created (mode 0600) if missing",
    )
    .addOption(allowLoopbackOption("the agent"))
    .addOption(allowPrivateOption("the agent"))
    .option("--timeout-ms <n>", "per-request deadline (default: the protocol's own limits)")
    .action(async (urlArg: string, opts: CheckOptions) => {
      const rt = runtime();
      const protocol = opts.protocol as string;
      const checker = CONFORMANCE_CHECKERS[protocol];
      if (checker === undefined) throw new CliError(`--protocol must be one of ${protocols.join(", ")}`);
      const url = parseUrlFlag(urlArg, "<url>", ["http:", "https:"]);
      const host = url.hostname.replace(/^\[|\]$/g, "");
      const klass = host === "localhost" ? "loopback" : classifyAddress(host);
      if (klass === "loopback" && opts.allowLoopback !== true)
        throw new CliError(`<url> is a loopback address: pass --allow-loopback to check a local agent`);
      if (klass === "private" && opts.allowPrivate !== true)
        throw new CliError(`<url> is a private-network address: pass --allow-private`);
      let timeoutMs: number | undefined;
      if (opts.timeoutMs !== undefined) {
        if (
          !/^[0-9]{1,7}$/.test(opts.timeoutMs) ||
          Number(opts.timeoutMs) < 1 ||
          Number(opts.timeoutMs) > MAX_TIMEOUT_MS
        ) {
          throw new CliError(
            `--timeout-ms must be an integer in 1..${MAX_TIMEOUT_MS}, got "${opts.timeoutMs.slice(0, 20)}"`,
          );
        }
        timeoutMs = Number(opts.timeoutMs);
      }
      const jwksPort = parsePortFlag(opts.jwksPort, "--jwks-port");
      const agentId = parseAgentIdFlag(opts.agentId);
      const credentials = readAgentSecrets(rt.io.env, opts);
      // What the check needs is what the protocol's spec makes mandatory (declared by the reference module).
      const required: keyof AgentAuth | undefined = AGENT_HANDLERS[protocol]?.requiredAuth;
      if ((required === "bearerToken" || required === "hmacSecret") && credentials[required] === undefined) {
        throw new CliError(`protocol ${protocol} needs the agent's credential: ${AUTH_FLAG[required]}`);
      }

      let signer: CheckSigner | undefined;
      if (required === "jwksUrl") {
        signer = await startCheckSigner({
          port: jwksPort,
          ...(opts.signingKeyFile !== undefined ? { keyFile: opts.signingKeyFile } : {}),
        });
        rt.io.stderr(
          `agent check: sample tokens are signed with the key published at ${signer.jwksUrl} (the agent must trust it: --jwks-url ${signer.jwksUrl})\n`,
        );
      }
      let report: ConformanceReport;
      try {
        const http = createSafeHttpClient({
          ...localAddressPolicy(opts),
          userAgent: "cresolver-agent-check",
        });
        const options: ConformanceRunOptions = {
          url: url.toString().replace(/\/+$/, ""),
          http,
          ...(Object.keys(credentials).length > 0 ? { credentials } : {}),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
          ...(signer !== undefined ? { signer: signer.signer } : {}),
          ...(agentId !== undefined ? { agentId } : {}),
        };
        report = await checker(options);
      } finally {
        await signer?.close();
      }
      rt.emit({ ...report, ...(signer !== undefined ? { jwksUrl: signer.jwksUrl } : {}) }, renderReport(report));
      if (
        signer !== undefined &&
        report.findings.some((f) => /\b401\b|refused authori[sz]ation/.test(f.message) && !/-refused$/.test(f.rule))
      ) {
        rt.io.stderr(
          `agent check: the agent refused the check's own tokens: start it with --jwks-url ${signer.jwksUrl}; an agent that cached another key refetches at most every 30 s, so use --signing-key-file for repeated checks\n`,
        );
      }
      const violated = [...new Set(report.findings.filter((f) => f.severity === "violation").map((f) => f.rule))];
      if (violated.length > 0) {
        const shown = violated.slice(0, 5).join(", ") + (violated.length > 5 ? ", …" : "");
        throw new CliError(`${protocol} conformance check failed: ${violated.length} rule(s) violated: ${shown}`, 1);
      }
    });
}
