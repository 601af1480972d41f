#!/usr/bin/env node
import { runCli } from './run.js';

// A reader that stops early (`dossier keys list | head -1`) is not a failure of the command.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

process.exitCode = await runCli(process.argv.slice(2), process.env, {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
// `serve` (or `mcp`) has stopped: a store connection that never confirmed its close (a frozen Redis) must not keep
// the process alive past its shutdown deadline.
if (process.argv[2] === 'serve' || process.argv[2] === 'mcp') process.exit();
