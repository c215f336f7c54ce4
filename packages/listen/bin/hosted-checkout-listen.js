#!/usr/bin/env node
import { runListen } from '../lib/cli.js';

const stopping = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => stopping.abort());
process.exitCode = await runListen(
  process.argv.slice(2),
  process.env,
  { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) },
  stopping.signal,
);
