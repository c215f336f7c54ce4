import { describe, expect, it } from 'vitest';
import { temporalTopologyFromEnv } from '../../scripts/infrastructure.js';

describe('TEMPORAL_TOPOLOGY', () => {
  it('is the dev server unless it names production’s server', () => {
    expect(temporalTopologyFromEnv(undefined)).toBe('dev');
    expect(temporalTopologyFromEnv('')).toBe('dev');
    expect(temporalTopologyFromEnv('dev')).toBe('dev');
    expect(temporalTopologyFromEnv('server')).toBe('server');
  });

  it('refuses anything else, naming the two it takes', () => {
    expect(() => temporalTopologyFromEnv('postgres')).toThrow('TEMPORAL_TOPOLOGY=postgres: use dev (the CLI’s dev server, the default) or server');
  });
});
