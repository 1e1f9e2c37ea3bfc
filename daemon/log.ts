/**
 * Daemon logging: pino JSON lines, pino-pretty when stdout is a terminal, secrets redacted by path.
 * `sanitizeError` turns any thrown value into a short message safe to log, store and serve.
 */
import { pino, type DestinationStream, type Logger, type LoggerOptions } from "pino";
import { LOG_REDACT_PATHS, REDACTED, redactText } from "../workflow/util/redact.js";

/** Paths whose values are never written (pino redact syntax): the shared list from workflow/util/redact.ts. */
export const REDACT_PATHS = LOG_REDACT_PATHS;

export interface LogOptions {
  level?: string;
  /** Force pretty output on or off; default: pretty when stdout is a TTY. */
  pretty?: boolean;
  /** Where JSON lines go (default stdout); ignored when pretty. Any writable stream fits. */
  destination?: DestinationStream;
  /** File descriptor of the pretty output (default 1, stdout; the CLI uses 2). */
  prettyFd?: 1 | 2;
}

export function createLogger(opts: LogOptions = {}): Logger {
  const options: LoggerOptions = {
    level: opts.level ?? process.env.LOG_LEVEL ?? "info",
    base: { service: "cresolver-daemon" },
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    serializers: { err: (e: unknown) => ({ message: sanitizeError(e) }) },
  };
  const pretty = opts.pretty ?? (opts.destination === undefined && process.stdout.isTTY === true);
  if (pretty) {
    return pino({
      ...options,
      transport: {
        target: "pino-pretty",
        options: { colorize: true, translateTime: "SYS:standard", destination: opts.prettyFd ?? 1 },
      },
    });
  }
  return opts.destination ? pino(options, opts.destination) : pino(options);
}

const MAX_ERROR_CHARS = 500;

/**
 * A short single-line description of `err` with secrets removed: URLs reduced to scheme://host[:port]
 * (RPC URLs often carry API keys in their path or query), bearer tokens, JWT-like strings, `key=value`
 * pairs named like secrets, control characters, and every literal in `secrets`; capped at 500 characters.
 */
export function sanitizeError(err: unknown, secrets: readonly string[] = []): string {
  let msg: string;
  if (err instanceof Error) {
    // viem errors carry a short message; their full text (details, URL, request body) is in `message` too.
    const short = (err as { shortMessage?: unknown }).shortMessage;
    msg = typeof short === "string" && short.length > 0 ? `${err.name}: ${short}` : `${err.name}: ${err.message}`;
  } else {
    msg = String(err);
  }
  return sanitizeText(msg, secrets);
}

/** `text` through the shared redaction rules (workflow/util/redact.ts), on one line, capped at 500 characters. */
export function sanitizeText(text: string, secrets: readonly string[] = []): string {
  let msg = redactText(text, secrets).replace(/[\u0000-\u001f\u007f]+/g, " ");
  if (msg.length > MAX_ERROR_CHARS) msg = `${msg.slice(0, MAX_ERROR_CHARS)}…`;
  return msg;
}
