/** Loading the per-agent credentials file shared by `cresolver resolve` and `cresolver daemon`. */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, resolve as resolvePath } from "node:path";
import { type CredentialConfig, credentialConfigSchema } from "../../workflow/adapters/credentials.js";
import { CliError } from "./errors.js";

const MAX_CREDENTIALS_BYTES = 1024 * 1024;
const FORMAT = '{ "<agentId>": { "origin": "https://host[:port]", "bearerToken"?: "…", "hmacSecret"?: "…" } }';

/** The git work tree a path is in, if any (walks up looking for `.git`). */
function gitWorkTree(path: string): string | undefined {
  let dir = dirname(path);
  for (;;) {
    if (existsSync(resolvePath(dir, ".git"))) return dir;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/**
 * Per-agent credentials: JSON `{ "<agentId>": { "origin": "https://host[:port]", "bearerToken"?: "…", "hmacSecret"?: "…" } }`.
 * `origin` is required: a secret is sent only to that origin, so an agent whose tokenURI moves elsewhere gets
 * nothing (its seat fails with `auth`). Files from before the binding (no origin) are refused, not guessed.
 * Policy: a regular file of at most 1 MiB; on POSIX refused when any "other" permission bit is set or it is
 * group-writable (chmod 600 or 640; like ssh with private keys — anyone who can read it can impersonate the
 * platform to the agents, anyone who can write it can redirect them); a file inside a git work tree is
 * accepted with a warning (keep it out of version control). Errors name the file and the JSON path, never a value.
 */
export function loadCredentialsFile(path: string, warn: (message: string) => void): CredentialConfig {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new CliError(`--credentials-file ${path}: file not found`);
  }
  if (!st.isFile()) throw new CliError(`--credentials-file ${path}: not a regular file`);
  if (process.platform !== "win32" && (st.mode & 0o027) !== 0) {
    throw new CliError(
      `--credentials-file ${path}: permissions ${(st.mode & 0o777).toString(8).padStart(3, "0")} are too open (readable or writable by others, or writable by the group): run chmod 600 ${path}`,
    );
  }
  if (st.size > MAX_CREDENTIALS_BYTES) throw new CliError(`--credentials-file ${path}: larger than 1 MiB`);
  const tree = gitWorkTree(path);
  if (tree !== undefined)
    warn(
      `warning: --credentials-file ${path} is inside the git work tree ${tree}: keep secrets out of version control`,
    );
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    throw new CliError(`--credentials-file ${path}: not JSON`);
  }
  const parsed = credentialConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? issue.path.map(String).join(".") || "(root)" : "";
    const noOrigin =
      issue !== undefined && issue.path.length === 2 && issue.path[1] === "origin" && issue.code === "invalid_type";
    const why = !issue
      ? "bad shape"
      : issue.code === "invalid_key"
        ? `${where}: keys must be ERC-8004 agent ids (decimal integers)`
        : noOrigin
          ? `${where}: missing; every entry names the endpoint origin its secrets may be sent to, e.g. "origin": "https://agent.example"`
          : `${where}: ${issue.message}`;
    throw new CliError(`--credentials-file ${path} is invalid: ${why} (expected ${FORMAT})`);
  }
  return parsed.data;
}
