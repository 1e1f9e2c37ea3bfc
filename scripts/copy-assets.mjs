// Copies the non-TypeScript files the built code loads next to itself (tsc emits only .js from .ts).
import { cpSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
cpSync(join(root, "explorer/client"), join(root, "dist/explorer/client"), { recursive: true });
