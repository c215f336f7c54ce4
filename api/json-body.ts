import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { z } from 'zod';
import { ApiError, jsonPath, validationError, type FieldError } from '../application/errors.js';

/** Deeper than any valid request (the cart's variant options sit at depth 6), shallow enough to walk safely. */
export const MAX_JSON_DEPTH = 16;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a request body as JSON, refusing in the documented envelope what JSON.parse alone would let
 * through or turn into a 500 further on: bytes that are not UTF-8 (decoding would quietly replace
 * them), nesting deeper than MAX_JSON_DEPTH (any recursive check would overflow the stack), a key
 * given twice in one object (JSON.parse keeps the last silently), and `__proto__` keys (zod never
 * copies them, so the field would vanish).
 */
export async function readJsonBody(c: Context): Promise<unknown> {
  let text: string;
  try {
    text = utf8.decode(await c.req.arrayBuffer());
  } catch (err) {
    if (err instanceof TypeError) throw new ApiError('INVALID_JSON', 'The body is not valid UTF-8. Send JSON encoded as UTF-8.');
    throw err;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError('INVALID_JSON', 'The body is not valid JSON. Check for trailing commas, unquoted keys or a truncated body.');
  }
  const problems = structureProblems(text, MAX_JSON_DEPTH);
  if (problems.length > 0) {
    throw new ApiError('VALIDATION_ERROR', `The request has ${problems.length} invalid field${problems.length === 1 ? '' : 's'}.`, problems);
  }
  return body;
}

/**
 * Before a JSON body is read: it must say it is JSON, and it is counted while it streams in, so a huge
 * body is cut off at `maxBytes` instead of buffered.
 */
export function jsonBody(maxBytes: number): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: maxBytes,
    // The rest of the body is never read, so the connection cannot carry another request: say so,
    // or a keep-alive client reuses it and fails.
    onError: () => {
      throw new ApiError('PAYLOAD_TOO_LARGE', `The body must be at most ${maxBytes} bytes.`, [], { Connection: 'close' });
    },
  });
  return async (c, next) => {
    if (!/^application\/json\s*(;|$)/i.test(c.req.header('content-type') ?? '')) {
      throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with the header Content-Type: application/json.');
    }
    return limit(c, next);
  };
}

/** A JSON body read as readJsonBody does, then validated by `schema`: every bad field by its path. */
export async function readValidJson<T extends z.ZodType>(c: Context, schema: T): Promise<z.output<T>> {
  const parsed = schema.safeParse(await readJsonBody(c), { reportInput: true });
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data;
}

type Frame = { kind: 'object'; path: PropertyKey[]; keys: Set<string>; key: string } | { kind: 'array'; path: PropertyKey[]; index: number };

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

/**
 * One pass over text JSON.parse accepted, with an explicit stack: no recursion, so no depth can
 * overflow it, and it stops at the first level too deep.
 */
export function structureProblems(text: string, maxDepth: number): FieldError[] {
  const problems: FieldError[] = [];
  const stack: Frame[] = [];
  const here = (): PropertyKey[] => {
    const top = stack.at(-1);
    if (!top) return [];
    return top.kind === 'object' ? [...top.path, top.key] : [...top.path, top.index];
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const top = stack.at(-1);
      let next = end + 1;
      while (WHITESPACE.has(text[next] ?? '')) next++;
      if (top?.kind === 'object' && text[next] === ':') {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        const path = jsonPath([...top.path, key]);
        if (key === '__proto__') problems.push({ path, message: 'is a reserved name' });
        else if (top.keys.has(key)) problems.push({ path, message: 'appears more than once in the same object' });
        top.keys.add(key);
        top.key = key;
        i = next;
      } else {
        i = end;
      }
    } else if (ch === '{' || ch === '[') {
      const path = here();
      if (stack.length >= maxDepth) return [{ path: jsonPath(path) || '(body)', message: `nests deeper than ${maxDepth} levels` }];
      stack.push(ch === '{' ? { kind: 'object', path, keys: new Set(), key: '' } : { kind: 'array', path, index: 0 });
    } else if (ch === '}' || ch === ']') {
      stack.pop();
    } else if (ch === ',') {
      const top = stack.at(-1);
      if (top?.kind === 'array') top.index++;
    }
  }
  return problems;
}
