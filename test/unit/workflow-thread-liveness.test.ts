import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { watchWorkflowThread, type InFlightActivations, type WorkflowThreadStall } from '../../worker/workflow-thread-liveness.js';

/** The SDK's `numInFlightActivations$` as the watch sees it: the current count on subscribe, then each change. */
function inFlightCounter() {
  let listener: ((n: number) => void) | undefined;
  let count = 0;
  const source: InFlightActivations = {
    subscribe(next) {
      listener = next;
      next(count);
      return { unsubscribe: () => (listener = undefined) };
    },
  };
  const set = (n: number) => {
    count = n;
    listener?.(n);
  };
  return { source, arrive: () => set(count + 1), complete: () => set(count - 1), subscribed: () => listener !== undefined };
}

describe('the workflow thread liveness watch', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** `cpuShare`: of one core, what the process uses meanwhile: a workflow thread spinning keeps one busy, an idle worker next to none. */
  const watch = (source: InFlightActivations, cpuShare = 1) => {
    const stalls: WorkflowThreadStall[] = [];
    const handle = watchWorkflowThread(source, { stallMs: 10_000, onStall: (stall) => stalls.push(stall), cpuMs: () => Date.now() * cpuShare });
    return { stalls, handle };
  };

  it('reports an activation in flight with none completed for the stall time, once, and stops watching', () => {
    const counter = inFlightCounter();
    const { stalls } = watch(counter.source);
    vi.advanceTimersByTime(30_000);
    counter.arrive();
    vi.advanceTimersByTime(9_000);
    expect(stalls).toEqual([]);
    counter.arrive();
    vi.advanceTimersByTime(1_000);
    expect(stalls).toEqual([{ inFlight: 2, stalledMs: 10_000 }]);
    vi.advanceTimersByTime(60_000);
    expect(stalls).toHaveLength(1);
    expect(counter.subscribed()).toBe(false);
  });

  it('never reports a busy worker whose activations keep completing, nor an idle one', () => {
    const counter = inFlightCounter();
    const { stalls } = watch(counter.source);
    counter.arrive();
    for (let second = 0; second < 120; second++) {
      counter.arrive();
      vi.advanceTimersByTime(1_000);
      counter.complete();
    }
    counter.complete();
    vi.advanceTimersByTime(120_000);
    expect(stalls).toEqual([]);
  });

  it('starts the clock at the first arrival after an idle spell, not at the last completion', () => {
    const counter = inFlightCounter();
    const { stalls } = watch(counter.source);
    counter.arrive();
    counter.complete();
    vi.advanceTimersByTime(60_000);
    counter.arrive();
    vi.advanceTimersByTime(5_000);
    expect(stalls).toEqual([]);
    vi.advanceTimersByTime(5_000);
    expect(stalls).toEqual([{ inFlight: 1, stalledMs: 10_000 }]);
  });

  it('waits out a Temporal outage: completions stop, but the process idles instead of spinning', () => {
    const counter = inFlightCounter();
    const { stalls } = watch(counter.source, 0.05);
    counter.arrive();
    vi.advanceTimersByTime(120_000);
    expect(stalls).toEqual([]);
  });

  it('counts no time the process spent paused: its checks came late, and completions could not be seen', () => {
    const counter = inFlightCounter();
    let clock = 0;
    const stalls: WorkflowThreadStall[] = [];
    watchWorkflowThread(counter.source, { stallMs: 10_000, onStall: (stall) => stalls.push(stall), now: () => clock, cpuMs: () => clock });
    counter.arrive();
    clock += 30_000;
    vi.advanceTimersByTime(1_000);
    expect(stalls).toEqual([]);
    for (let second = 0; second < 10; second++) {
      clock += 1_000;
      vi.advanceTimersByTime(1_000);
    }
    expect(stalls).toEqual([{ inFlight: 1, stalledMs: 10_000 }]);
  });

  it('reports nothing once stopped', () => {
    const counter = inFlightCounter();
    const { stalls, handle } = watch(counter.source);
    counter.arrive();
    handle.stop();
    vi.advanceTimersByTime(60_000);
    expect(stalls).toEqual([]);
    expect(counter.subscribed()).toBe(false);
  });
});
