import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { round } from './load.js';

/** /proc/<pid>/stat's times are in USER_HZ, 100 per second on Linux. */
const TICKS_PER_S = 100;

/** One process, or a server and the children it forks (PostgreSQL's backends). */
export type ProcessGroup = { pid: number | undefined; withChildren?: boolean };

function statFields(pid: number): string[] | undefined {
  try {
    // The command name may hold spaces and parentheses; the fields start after its last ')'.
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)!.split(' ');
  } catch {
    return undefined;
  }
}

/** User and system ticks, its reaped children's included (fields 14–17 of proc(5), 12–15 here). */
function processTicks(pid: number): number {
  const f = statFields(pid);
  return f ? Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) : 0;
}

function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => Number(statFields(pid)?.[1]) === parent);
}

function groupTicks(group: ProcessGroup): number {
  if (!group.pid) return 0;
  const pids = group.withChildren ? [group.pid, ...childrenOf(group.pid)] : [group.pid];
  return pids.reduce((sum, pid) => sum + processTicks(pid), 0);
}

/** Busy and total ticks of the whole machine, from /proc/stat's first line. */
function machineTicks(): { busy: number; total: number } {
  const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = values.map(Number);
  const busy = user + nice + system + irq + softirq + steal;
  return { busy, total: busy + idle + iowait };
}

/**
 * Until the machine's cores idle: below `busyPctBelow` of all of them over one second, or `limitMs`
 * has passed. A drained task queue is not a quiet server: Temporal writes the visibility records of
 * the starts just made (their search attributes) after answering them, and that work would be charged
 * to whatever is measured next.
 */
export async function untilMachineQuiet({ busyPctBelow = 10, limitMs = 60_000 } = {}): Promise<void> {
  const giveUpAt = Date.now() + limitMs;
  let before = machineTicks();
  while (Date.now() < giveUpAt) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const now = machineTicks();
    const busyPct = (100 * (now.busy - before.busy)) / Math.max(1, now.total - before.total);
    if (busyPct < busyPctBelow) return;
    before = now;
  }
}

export interface CpuFigures {
  /** Wall time the meter ran. */
  seconds: number;
  /** CPU seconds each group used in that time (a process of the bench itself is `bench`). */
  cpuSeconds: Record<string, number>;
  /** Share of all the machine's cores that was busy, whoever used them. */
  machineBusyPct: number;
  cores: number;
}

/**
 * What each process cost in CPU over a measurement, so a figure bounded by this 2-core machine says
 * which process used the cores and how much of each operation it costs.
 */
export function cpuMeter(groups: Record<string, ProcessGroup>) {
  const startedAt = performance.now();
  const startBench = process.cpuUsage();
  const startGroups = Object.fromEntries(Object.entries(groups).map(([name, g]) => [name, groupTicks(g)]));
  const startMachine = machineTicks();
  return {
    stop(): CpuFigures {
      const bench = process.cpuUsage(startBench);
      const machine = machineTicks();
      const cpuSeconds: Record<string, number> = Object.fromEntries(
        Object.entries(groups).map(([name, g]) => [name, round((groupTicks(g) - startGroups[name]!) / TICKS_PER_S, 2)]),
      );
      cpuSeconds.bench = round((bench.user + bench.system) / 1e6, 2);
      const total = machine.total - startMachine.total;
      return {
        seconds: round((performance.now() - startedAt) / 1000, 1),
        cpuSeconds,
        machineBusyPct: total > 0 ? round((100 * (machine.busy - startMachine.busy)) / total, 0) : 0,
        cores: cpus().length,
      };
    },
  };
}

/** CPU milliseconds per operation, by process: what one payment or one page costs each of them. */
export function cpuMsPer(figures: CpuFigures, operations: number): Record<string, number> {
  return Object.fromEntries(Object.entries(figures.cpuSeconds).map(([name, s]) => [name, round((s * 1000) / operations, 1)]));
}

export type MeasuredCpu = { cpu: CpuFigures; cpuMsPerRequest: Record<string, number> };

/** Runs a measurement under a CPU meter and adds what it cost each process, in all and per request. */
export async function withCpu<F extends { requests: number }>(groups: Record<string, ProcessGroup>, measure: () => Promise<F>): Promise<F & MeasuredCpu> {
  const meter = cpuMeter(groups);
  const figures = await measure();
  const cpu = meter.stop();
  return { ...figures, cpu, cpuMsPerRequest: cpuMsPer(cpu, figures.requests) };
}
