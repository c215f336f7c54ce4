// Loaded by path (DataConverter.failureConverterPath): required by every client and worker, and
// bundled into the workflow sandbox, so it is CommonJS that Node and the workflow bundler both load
// without a TypeScript loader. Failure messages and stack traces become one payload that the
// encryption codec (core/temporal/codec.ts) encrypts like any other: an SMTP rejection naming the
// recipient, or a refusal's text, reaches history only encrypted.
const { DefaultFailureConverter } = require('@temporalio/common');

exports.failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
