#!/usr/bin/env node
// The development launcher: runs the TypeScript sources through tsx's loader,
// so the tests drive the CLI without a build. The published package's bin is
// the compiled dist/cli.js.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
