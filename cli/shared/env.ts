/**
 * The environment variable names the CLI reads, and the secrets a command line would read from them. Kept free of
 * heavy imports: the entry point needs them before any command module loads (cli/registry.ts).
 */

export const ENV = {
  rpcUrl: "RPC_URL",
  privateKey: "PRIVATE_KEY",
  deployment: "CRESOLVER_DEPLOYMENT",
  walletKey: "AGENT_WALLET_KEY",
  /** Seconds one RPC request may take, retries included, before the command reports what it waits on. */
  rpcTimeout: "CRESOLVER_RPC_TIMEOUT",
} as const;

export const DEFAULT_RPC_URL = "http://127.0.0.1:8545";

export const AGENT_ENV = {
  bearerToken: "CRESOLVER_AGENT_BEARER_TOKEN",
  hmacSecret: "CRESOLVER_AGENT_HMAC_SECRET",
  /** The key the agent signs its cresolver answers with (its ERC-8004 agentWallet or owner). */
  signingKey: "CRESOLVER_AGENT_SIGNING_KEY",
} as const;

/** Values of the secret variables a command line would read, for scrubbing output. */
export function agentSecretsInEnv(argv: readonly string[], env: Record<string, string | undefined>): string[] {
  const names: string[] = [AGENT_ENV.bearerToken, AGENT_ENV.hmacSecret, AGENT_ENV.signingKey];
  argv.forEach((arg, i) => {
    for (const flag of ["--bearer-token-env", "--hmac-secret-env", "--signing-key-env"]) {
      const next = argv[i + 1];
      if (arg === flag && next) names.push(next);
      if (arg.startsWith(`${flag}=`)) names.push(arg.slice(flag.length + 1));
    }
  });
  return names.map((n) => env[n]).filter((v): v is string => typeof v === "string" && v !== "");
}
