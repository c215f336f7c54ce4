import type { ChildProcess } from 'node:child_process';

/**
 * A server we spawned: the tail of what it printed (for the error when it dies or never answers),
 * each chunk passed to `log`, and a stop that asks politely (SIGTERM) and insists after `graceMs`.
 */
export function superviseServer(child: ChildProcess, log: (line: string) => void = () => {}, graceMs = 10_000) {
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
    log(chunk.toString().trimEnd());
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
