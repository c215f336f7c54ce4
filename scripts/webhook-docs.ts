import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CART_EVENT_EXAMPLES, TEST_EVENT_EXAMPLE } from '../core/webhooks/event-examples.js';
import { CART_EVENT_SCHEMAS, testEventBodySchema, WEBHOOK_EVENT_NAMES } from '../core/webhooks/events.js';

/** Where the event reference lives, from the repository's root; `npm run docs:webhooks` rewrites its marked section. */
export const WEBHOOK_DOCS_PATH = 'docs/webhooks.md';
export const WEBHOOK_DOCS_COMMAND = 'npm run docs:webhooks';
const START = '<!-- event reference: generated from core/webhooks/events.ts by npm run docs:webhooks; do not edit -->';
const END = '<!-- end of the event reference -->';

interface JsonSchema {
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  type?: string | string[];
  format?: string;
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  description?: string;
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** A field's type as a merchant reads it: `"paid" \| "authorized"`, `integer`, `Item[]`, `string \| null`. */
function typeOf(schema: JsonSchema): string {
  if (schema.$ref) return schema.$ref.split('/').pop()!;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' | ');
  if (schema.type === 'array') return `${typeOf(schema.items ?? {})}[]`;
  if (schema.type === 'object' && typeof schema.additionalProperties === 'object') return `object of ${typeOf(schema.additionalProperties)}`;
  if (schema.format === 'date-time') return 'string (ISO 8601)';
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  return schema.type ?? 'any';
}

/**
 * A component (`$ref` to `$defs`) as its own schema, keeping the description given where it is used;
 * an `allOf` of objects (OrderRefundedData: OrderData and the refund) as the one object it describes.
 */
function resolve(schema: JsonSchema, defs: Record<string, JsonSchema>): JsonSchema {
  if (schema.allOf) {
    const parts = schema.allOf.map((part) => resolve(part, defs));
    return {
      type: 'object',
      properties: Object.assign({}, ...parts.map((part) => part.properties)) as Record<string, JsonSchema>,
      required: parts.flatMap((part) => part.required ?? []),
      description: schema.description,
    };
  }
  if (!schema.$ref) return schema;
  const target = resolve(defs[schema.$ref.split('/').pop()!] ?? {}, defs);
  return { ...target, description: schema.description ?? target.description };
}

/** One row per field, nested objects (not lists) flattened to `payment.brand`. */
function fieldRows(schema: JsonSchema, defs: Record<string, JsonSchema>, prefix = ''): string[] {
  return Object.entries(schema.properties ?? {}).flatMap(([name, field]) => {
    const path = `${prefix}${name}`;
    const resolved = resolve(field, defs);
    const presence = schema.required?.includes(name) ? 'always' : 'optional';
    const nested = resolved.type === 'object' && resolved.properties !== undefined;
    const row = `| \`${path}\` | ${cell(nested ? 'object' : typeOf(field))} | ${presence} | ${cell(resolved.description ?? '')} |`;
    return nested ? [row, ...fieldRows(resolved, defs, `${path}.`)] : [row];
  });
}

function eventSection(name: string, schema: z.ZodType, example: unknown): string[] {
  const json = z.toJSONSchema(schema, { unrepresentable: 'any' }) as JsonSchema;
  const defs = json.$defs ?? {};
  const body = resolve(json, defs);
  return [
    `### \`${name}\``,
    '',
    body.description ?? '',
    '',
    '| field | type | present | meaning |',
    '|---|---|---|---|',
    ...fieldRows(body, defs),
    '',
    '```json',
    JSON.stringify(example, null, 2),
    '```',
    '',
  ];
}

/** The marked section: each event's fields and an example body, from the schemas the OpenAPI document's `webhooks` uses. */
export function renderEventReference(): string {
  return [
    START,
    '',
    ...WEBHOOK_EVENT_NAMES.flatMap((name) => eventSection(name, CART_EVENT_SCHEMAS[name], CART_EVENT_EXAMPLES[name])),
    ...eventSection('webhook_test', testEventBodySchema, TEST_EVENT_EXAMPLE),
    END,
  ].join('\n');
}

/** docs/webhooks.md with its marked section as the schemas render it today. */
export function renderWebhookDocs(current = readFileSync(new URL(`../${WEBHOOK_DOCS_PATH}`, import.meta.url), 'utf8')): string {
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${WEBHOOK_DOCS_PATH} has lost its markers: put back the lines ${START} and ${END}`);
  return `${current.slice(0, start)}${renderEventReference()}${current.slice(end + END.length)}`;
}
