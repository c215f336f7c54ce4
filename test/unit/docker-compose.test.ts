import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CONFIG_VARIABLES, loadConfig } from '../../core/config.js';
import { TEMPORAL_DYNAMIC_CONFIG } from '../../scripts/temporal-dynamic-config.js';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../../workflows/cart-session/messages.js';

interface Service {
  image?: string;
  build?: string;
  command?: string[] | string;
  ports?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
}

// No Docker engine runs here, so the compose file is checked against the code instead of being run.
const compose = parse(readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const defaults = loadConfig({ CHECKOUT_ENV: 'sandbox', DATABASE_URL: 'postgres://x', DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64') });

describe('docker-compose.yml', () => {
  it('has the production-shaped services', () => {
    expect(Object.keys(services)).toEqual(expect.arrayContaining(['postgres', 'temporal', 'temporal-ui', 'api', 'web', 'worker']));
    expect(services.temporal?.image).toMatch(/^temporalio\/server:/);
    expect(JSON.stringify(compose)).not.toContain('temporalio/auto-setup');
    expect(services['temporal-schema']?.image).toMatch(/^temporalio\/admin-tools:/);
    expect(services['temporal-ui']?.image).toMatch(/^temporalio\/ui:/);
  });

  it('publishes the API and the checkout page, the Temporal UI on loopback only, and nothing else', () => {
    expect(services.api?.ports).toEqual([`${defaults.apiPort}:${defaults.apiPort}`]);
    expect(services.web?.ports).toEqual([`${defaults.webPort}:${defaults.webPort}`]);
    expect(services['temporal-ui']?.ports).toEqual(['127.0.0.1:8233:8080']);
    const published = Object.entries(services).filter(([, service]) => service.ports?.length);
    expect(published.map(([name]) => name).sort()).toEqual(['api', 'temporal-ui', 'web']);
  });

  it('takes every credential and the environment from the operator, with no default', () => {
    const text = readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8');
    for (const name of ['POSTGRES_PASSWORD', 'DATA_ENCRYPTION_KEY', 'OPERATOR_TOKEN', 'CHECKOUT_ENV']) {
      const uses = [...text.matchAll(new RegExp(`\\$\\{${name}(:?[-?][^}]*)?\\}`, 'g'))].map((m) => m[0]);
      expect(uses.length, name).toBeGreaterThan(0);
      for (const use of uses) expect(use, name).toMatch(new RegExp(`^\\$\\{${name}:\\?`));
    }
  });

  it('runs api, web and worker from one image with their own entry points', () => {
    for (const role of ['api', 'web', 'worker'] as const) {
      expect(services[role]?.build).toBe('.');
      expect(services[role]?.command).toEqual(['node', '--import', 'tsx', `${role}/main.ts`]);
    }
  });

  it('gives the app only variables the config knows, and every one it requires', () => {
    for (const role of ['api', 'web', 'worker', 'migrate']) {
      const env = services[role]?.environment ?? {};
      for (const name of Object.keys(env)) expect(CONFIG_VARIABLES).toContain(name);
      expect(Object.keys(env)).toEqual(expect.arrayContaining(['DATABASE_URL', 'TEMPORAL_ADDRESS', 'DATA_ENCRYPTION_KEY', 'TEMPORAL_TASK_QUEUE']));
      expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
      expect(env.TEMPORAL_TASK_QUEUE).toBe(defaults.temporal.taskQueue);
      expect(env.DATABASE_URL).toMatch(/@postgres:5432\//);
    }
  });

  it('registers the search attributes the workflow writes', () => {
    const setup = JSON.stringify(services['temporal-setup']?.command);
    for (const definition of SEARCH_ATTRIBUTE_DEFINITIONS) expect(setup).toContain(definition);
  });

  it('runs Temporal with the dynamic config the dev and test servers run with', () => {
    const dynamic = parse(readFileSync(new URL('../../deploy/temporal/dynamicconfig.yaml', import.meta.url), 'utf8')) as Record<string, { value: unknown }[]>;
    for (const [key, value] of Object.entries(TEMPORAL_DYNAMIC_CONFIG)) expect(dynamic[key], key).toEqual([{ value, constraints: {} }]);
  });
});
