import { ensureOapiCodegen, ensurePythonClientGenerator } from './client-generators.js';

/** `npm run clients:provision`: the Go and Python client generators the generated-clients test runs, installed once. */
const oapiCodegen = await ensureOapiCodegen();
process.stdout.write(`oapi-codegen: ${oapiCodegen}\n`);
const venv = ensurePythonClientGenerator();
process.stdout.write(`openapi-python-client: ${venv}/bin/openapi-python-client\n`);
