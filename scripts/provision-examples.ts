import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { EXAMPLE_LANGUAGES, EXAMPLES_DIR, goEnv, missingToolchain, pythonVenv, venvPython, type ExampleLanguage } from './examples-toolchains.js';

/**
 * `npm run examples:provision`: each merchant example's dependencies from its language's registry
 * (the Go module proxy, PyPI, npm), so the test run needs no network. Again is quick: each tool
 * skips what it already has. A language whose toolchain this machine lacks is skipped with a line,
 * except under CI=true, where it is an error: CI runs every example.
 */

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const done = spawnSync(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
  if (done.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${done.status ?? done.signal})`);
}

const steps: Record<ExampleLanguage, () => void> = {
  go: () => run('go', ['mod', 'download'], path.join(EXAMPLES_DIR, 'go'), goEnv(false)),
  python: () => {
    run('python3', ['-m', 'venv', pythonVenv()], EXAMPLES_DIR);
    run(venvPython(), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', 'requirements.txt'], path.join(EXAMPLES_DIR, 'python'));
  },
  node: () => run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], path.join(EXAMPLES_DIR, 'node')),
};

let failed = false;
for (const language of EXAMPLE_LANGUAGES) {
  const missing = missingToolchain(language);
  if (missing) {
    failed ||= process.env.CI === 'true';
    process.stdout.write(`examples: ${language} skipped: no ${missing} on PATH\n`);
    continue;
  }
  const started = Date.now();
  steps[language]();
  process.stdout.write(`examples: ${language} ready (${Date.now() - started} ms)\n`);
}
if (failed) {
  process.stderr.write('examples: CI runs every example; install the missing toolchains\n');
  process.exitCode = 1;
}
