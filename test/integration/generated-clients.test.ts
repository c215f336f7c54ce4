import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { OAPI_CODEGEN_RUNTIME, provisionedClientGenerators } from '../../scripts/client-generators.js';
import { validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';

/**
 * docs/clients.md's commands, run as written: each generator with its default settings on the running
 * API's /openapi.json, the client compiled, and a short program that creates a cart through it. The
 * generated code goes to a temporary folder, never into git.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const tools = provisionedClientGenerators();
/** Outside CI a machine that has not run `npm run clients:provision` skips, and says so; under CI=true it fails instead. */
const skip = (!tools.oapiCodegen || !tools.pythonVenv) && process.env.CI !== 'true';
if (skip) console.warn('generated-clients tests skipped: run `npm run -s clients:provision` (oapi-codegen and openapi-python-client)');

/** Asynchronous: the API these programs call is served by this process (test/support/test-stack.ts). */
function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env: { ...process.env, ...options.env }, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => (error ? reject(new Error(`${command} ${args.join(' ')}: ${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout)),
    );
  });
}

async function timed<T>(what: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const result = await work();
  console.info(`${what}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

const GO_PROGRAM = `package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"example.com/merchant/client"
)

func main() {
	var body client.CreateCartJSONRequestBody
	if err := json.Unmarshal([]byte(os.Args[2]), &body); err != nil {
		panic(err)
	}
	api, err := client.NewClientWithResponses(os.Args[1])
	if err != nil {
		panic(err)
	}
	key := "go-generated-client"
	created, err := api.CreateCartWithResponse(context.Background(), &client.CreateCartParams{IdempotencyKey: &key}, body)
	if err != nil {
		panic(err)
	}
	if created.JSON200 == nil {
		panic(fmt.Sprintf("create-cart answered %d: %s", created.StatusCode(), created.Body))
	}
	fmt.Printf("go: cart %s\\n", created.JSON200.Data.CartId)
}
`;

const PYTHON_PROGRAM = `import json, sys
from hosted_checkout_api_client import Client
from hosted_checkout_api_client.api.checkout_sessions import create_cart
from hosted_checkout_api_client.models import CreateCartRequest, CreatedCart

api = Client(base_url=sys.argv[1])
created = create_cart.sync(client=api, body=CreateCartRequest.from_dict(json.loads(sys.argv[2])), idempotency_key="python-generated-client")
if not isinstance(created, CreatedCart):
    raise SystemExit(f"create-cart answered {created}")
print(f"python: cart {created.data.cart_id}")
`;

const TYPESCRIPT_PROGRAM = `import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

type CreateCartBody = paths['/v2/public/api/cart/']['post']['requestBody']['content']['application/json'];

const api = createClient<paths>({ baseUrl: process.argv[2] });
const body = JSON.parse(process.argv[3] ?? '') as CreateCartBody;
const { data, error } = await api.POST('/v2/public/api/cart/', { body, params: { header: { 'Idempotency-Key': 'typescript-generated-client' } } });
if (!data) throw new Error(\`create-cart answered \${JSON.stringify(error)}\`);
console.log(\`typescript: cart \${data.data.cartId}\`);
`;

describe.skipIf(skip)('clients generated from /openapi.json with default settings (docs/clients.md)', () => {
  const stack = useTestStack();
  let merchant: CreatedMerchant;
  let work: string;
  /** Each program's arguments: the API's URL and a create-cart body. */
  let programArgs: string[];

  beforeAll(async () => {
    merchant = await stack.createMerchant({ name: 'Generated Clients Store' });
    work = mkdtempSync(path.join(tmpdir(), 'generated-clients-'));
    programArgs = [stack.apiUrl, JSON.stringify(validCartRequest(merchant.platformUuid))];
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** The cart the program printed exists, the merchant's, as created. */
  async function expectCart(line: string, language: string) {
    const cartId = line.match(new RegExp(`^${language}: cart (\\S+)$`))?.[1];
    expect(cartId, line).toBeDefined();
    const order = await fetch(`${stack.apiUrl}/v2/merchant/orders/${cartId}`, { headers: { authorization: `Bearer ${merchant.apiKey}` } });
    expect(order.status).toBe(200);
    expect(((await order.json()) as { status: string }).status).toBe('pending');
  }

  it('Go (oapi-codegen): generates, vets, builds and creates a cart', async () => {
    const dir = path.join(work, 'go');
    mkdirSync(path.join(dir, 'client'), { recursive: true });
    const generated = await timed('go: generate', () =>
      run(tools.oapiCodegen ?? 'oapi-codegen', ['-package', 'client', `${stack.apiUrl}/openapi.json`], { cwd: dir }),
    );
    writeFileSync(path.join(dir, 'client', 'client.gen.go'), generated);
    writeFileSync(
      path.join(dir, 'go.mod'),
      `module example.com/merchant\n\ngo 1.22\n\nrequire ${OAPI_CODEGEN_RUNTIME.module} v${OAPI_CODEGEN_RUNTIME.version}\n`,
    );
    writeFileSync(path.join(dir, 'main.go'), GO_PROGRAM);
    await timed('go: mod tidy, vet, build', async () => {
      await run('go', ['mod', 'tidy'], { cwd: dir });
      await run('go', ['vet', './...'], { cwd: dir });
      await run('go', ['build', '-o', 'merchant', '.'], { cwd: dir });
    });
    const line = (await run(path.join(dir, 'merchant'), programArgs, { cwd: dir })).trim();
    console.info(line);
    await expectCart(line, 'go');
  }, 600_000);

  it('Python (openapi-python-client): generates, compiles, imports and creates a cart', async () => {
    const venv = tools.pythonVenv ?? '';
    // As in the activated venv docs/clients.md says to use: the generator runs ruff from it on what it wrote.
    const venvEnv = { PATH: `${path.join(venv, 'bin')}:${process.env.PATH}`, VIRTUAL_ENV: venv };
    const dir = path.join(work, 'python');
    mkdirSync(dir);
    const output = await timed('python: generate', () =>
      run('openapi-python-client', ['generate', '--url', `${stack.apiUrl}/openapi.json`, '--output-path', 'client'], { cwd: dir, env: venvEnv }),
    );
    expect(output).not.toMatch(/Warning|Unable to process/);
    await timed('python: compileall', () => run('python', ['-m', 'compileall', '-q', 'client'], { cwd: dir, env: venvEnv }));
    writeFileSync(path.join(dir, 'merchant.py'), PYTHON_PROGRAM);
    const line = (await run('python', ['merchant.py', ...programArgs], { cwd: dir, env: { ...venvEnv, PYTHONPATH: path.join(dir, 'client') } })).trim();
    console.info(line);
    await expectCart(line, 'python');
  }, 600_000);

  it('TypeScript (openapi-typescript + openapi-fetch): generates, type-checks and creates a cart', async () => {
    // Inside the repository, so the program resolves openapi-fetch and tsx from its node_modules; gitignored (.openapi/).
    const dir = mkdtempSync(path.join(ROOT, '.openapi', 'typescript-'));
    try {
      const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);
      await timed('typescript: generate', () => run(bin('openapi-typescript'), [`${stack.apiUrl}/openapi.json`, '-o', 'schema.ts'], { cwd: dir }));
      writeFileSync(path.join(dir, 'merchant.ts'), TYPESCRIPT_PROGRAM);
      writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            types: ['node'],
            skipLibCheck: true,
          },
          files: ['merchant.ts'],
        }),
      );
      await timed('typescript: tsc', () => run(bin('tsc'), ['-p', 'tsconfig.json'], { cwd: dir }));
      const line = (await run(process.execPath, ['--import', 'tsx', 'merchant.ts', ...programArgs], { cwd: dir })).trim();
      console.info(line);
      await expectCart(line, 'typescript');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);
});
