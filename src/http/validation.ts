/**
 * Request validation against openapi.yaml (express-openapi-validator), and the translation of
 * its errors into the catalogue's body `{message, errors:[{field, reason}]}`.
 *
 *   validator: { path: '/body/filters/prefectureId/any/2', message: 'must be integer',
 *                errorCode: 'type.openapi.validation' }
 *   response:  { field: 'filters.prefectureId.any[2]', reason: 'must be an integer' }
 */
import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import { parse } from 'yaml';
import { corporateSearch, jobSearch } from '../catalogue/searches.js';
import { ApiError, errors, type FieldError } from '../errors/catalogue.js';
import { toFieldPath, toReason } from '../errors/field-errors.js';
import { namesAt, unknownFieldReason } from '../errors/suggest.js';
import { projectRoot } from '../project-root.js';
import { cacheRouteMatchers } from './route-matchers.js';
import { findJsonTextProblems } from './strict-json.js';

export const openApiFile = path.join(projectRoot, 'openapi.yaml');
export const maxBodySize = '100kb';
/** POST /corporates/match takes up to 1,000 records with addresses: a larger body. */
export const matchBodySize = '1mb';
const matchPath = '/corporates/match';
const matchJson = express.json({ limit: matchBodySize, strict: false, verify: keepRawBody });
/** POST /reconcile takes the spec's form body (`queries=<JSON batch>`), as large as a match's. */
const reconcilePath = '/reconcile';
const reconcileForm = express.urlencoded({ extended: false, limit: matchBodySize, parameterLimit: 10 });

let cachedSpec: OpenAPIV3.DocumentV3 | undefined;

/** The generated description, parsed once per process. */
export function openApiDocument(): OpenAPIV3.DocumentV3 {
  cachedSpec ??= parse(readFileSync(openApiFile, 'utf8')) as OpenAPIV3.DocumentV3;
  return cachedSpec;
}

/** Content-Encoding values a request body may have (one coding, no list). */
export const acceptedContentEncodings = ['identity', 'gzip'] as const;

/**
 * JSON body parsing and validation, for the routes behind it. A request with a body must say
 * `Content-Type: application/json` (415 otherwise) and, if compressed, `Content-Encoding:
 * gzip` (415 for any other coding); express.json reports malformed JSON (400), a gzip body
 * that does not gunzip (400) and bodies over 100 kB once decompressed (413), which the error
 * middleware turns into the catalogue's bodies. A body JSON.parse accepted is then refused
 * (400) for what the parse lets through silently: invalid UTF-8, a lone surrogate, a
 * duplicate key (src/http/strict-json.ts).
 */
export function validateRequests(): RequestHandler[] {
  // one validator per process: it compiles a route's schema on that route's first request,
  // so sharing it lets `warmUpValidation` do that once before the server takes traffic; its
  // route lookup compiles each path template once, not on every request (./route-matchers.ts)
  cacheRouteMatchers();
  shared ??= [
    requireJsonBody,
    // a body parsed here is not parsed again by the next parser
    (req: Request, res: Response, next: NextFunction) =>
      req.path === matchPath ? matchJson(req, res, next) : next(),
    (req: Request, res: Response, next: NextFunction) =>
      req.path === reconcilePath && req.method === 'POST' ? reconcileForm(req, res, next) : next(),
    express.json({ limit: maxBodySize, strict: false, verify: keepRawBody }),
    refuseSilentlyChangedJson,
    ...OpenApiValidator.middleware({
      apiSpec: validatorDocument(),
      validateRequests: { allErrors: true, removeAdditional: false, coerceTypes: false },
      validateResponses: false,
      // authentication runs before validation (src/http/authenticate.ts)
      validateSecurity: false,
      validateFormats: true,
      ajvFormats: { mode: 'full' },
      $refParser: { mode: 'dereference' },
    }),
  ];
  return shared;
}

let shared: RequestHandler[] | undefined;

/**
 * The request schemas the search and export parsers validate themselves
 * (src/search/parse-request.ts, src/search/export.ts): search and count bodies, export bodies.
 */
const parsedBodies = new Set(
  [corporateSearch, jobSearch].flatMap((search) => [search.schemaNames.request, search.schemaNames.export]),
);

/**
 * The description as the validator gets it: a copy (the validator annotates the document it
 * is given) in which the search, count and export bodies are only required to be JSON
 * objects. Their full check is the parsers', run once (docs/decisions/errors-and-validation.md); everything else (paths, methods, parameters, content types, other bodies) stays here.
 */
function validatorDocument(): OpenAPIV3.DocumentV3 {
  const document = structuredClone(openApiDocument());
  for (const item of Object.values(document.paths ?? {})) {
    const content = (item?.post?.requestBody as OpenAPIV3.RequestBodyObject | undefined)?.content;
    const json = content?.['application/json'];
    const ref = (json?.schema as OpenAPIV3.ReferenceObject | undefined)?.$ref;
    if (json && ref && parsedBodies.has(ref.replace('#/components/schemas/', '')))
      json.schema = { type: 'object' };
  }
  return document;
}

/**
 * Sends one request per POST operation of the description through the shared validator, on a
 * throw-away loopback server, so the first real searches do not wait on schema compilation
 * (about 0.4-0.7 s per route here, which also stalls every other request in the process).
 */
export async function warmUpValidation(): Promise<void> {
  const app = express();
  const base = openApiDocument().servers?.[0]?.url ?? '';
  app.use(base, validateRequests(), (_req: Request, res: Response) => {
    res.status(204).end();
  });
  app.use((_error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    res.status(204).end();
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  try {
    for (const [route, item] of Object.entries(openApiDocument().paths ?? {})) {
      if (!item?.post) continue;
      await fetch(`http://127.0.0.1:${port}${base}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

const charsetParameter = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i;

function requireJsonBody(req: Request, _res: Response, next: NextFunction): void {
  // a body is present when it has a length or is chunked (RFC 9112 §6.3)
  const hasBody =
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (!hasBody) {
    next();
    return;
  }
  // a reconciliation batch is a form (the W3C Reconciliation API 0.2); every other body JSON
  if (req.path === reconcilePath && req.method === 'POST') {
    if (!req.is('application/x-www-form-urlencoded')) throw errors.unsupportedFormMediaType();
  } else if (!req.is('application/json')) throw errors.unsupportedMediaType();
  // JSON is UTF-8 (RFC 8259 §8.1): any other charset, aliases such as utf8 included, is a 415
  const charset = charsetParameter.exec(req.headers['content-type'] ?? '');
  if (charset) {
    const name = charset[1] ?? charset[2] ?? '';
    if (name.toLowerCase() !== 'utf-8') throw errors.unsupportedCharset(name);
  }
  // gzip or nothing: body-parser would also try deflate, br and (on newer Node) zstd, and
  // answer a body that is not what its coding says with a 500 (docs/decisions/http-server-and-bodies.md)
  const encoding = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding !== '' && !(acceptedContentEncodings as readonly string[]).includes(encoding))
    throw errors.unsupportedContentEncoding(req.headers['content-encoding'] ?? '');
  next();
}

/** The bytes of each parsed body (decompressed), for the checks JSON.parse does not make. */
const rawBodies = new WeakMap<Request, Buffer>();

function keepRawBody(req: Request, _res: Response, body: Buffer): void {
  rawBodies.set(req, body);
}

/**
 * A body JSON.parse accepted but changed on the way: invalid UTF-8 (decoded to U+FFFD), a lone
 * surrogate (a string that is no text), a duplicate key (the last one kept). Each is a 400
 * naming its field: invalid UTF-8 as `malformed_json` (JSON text is UTF-8, RFC 8259 §8.1),
 * the others as `invalid_request` (I-JSON, RFC 7493 §2.1 and §2.3).
 */
function refuseSilentlyChangedJson(req: Request, _res: Response, next: NextFunction): void {
  const raw = rawBodies.get(req);
  if (raw === undefined) {
    next();
    return;
  }
  rawBodies.delete(req);
  const problems = findJsonTextProblems(raw);
  if (problems.length === 0) {
    next();
    return;
  }
  const fieldErrors = (kind?: string) =>
    problems
      .filter((p) => kind === undefined || p.kind === kind)
      .map(({ field, reason }) => ({ field, reason }));
  if (problems.some((p) => p.kind === 'invalid_utf8'))
    throw errors.malformedJson(fieldErrors('invalid_utf8'));
  throw errors.validation(fieldErrors());
}

/** body-parser's error for a body its decompressor rejected: zlib's codes (Z_DATA_ERROR, Z_BUF_ERROR). */
function isDecompressionError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return (error as { status?: unknown })?.status === 400 && typeof code === 'string' && code.startsWith('Z_');
}

interface ValidatorError extends Error {
  status: number;
  path?: string;
  errors?: Array<{ path: string; message: string; errorCode?: string }>;
}

function isValidatorError(error: unknown): error is ValidatorError {
  return (
    error instanceof Error &&
    typeof (error as ValidatorError).status === 'number' &&
    Array.isArray((error as ValidatorError).errors)
  );
}

/**
 * The validator's, express.json's and body-parser's errors as catalogue errors; undefined for
 * anything else. Only statuses and our own wording are used, never the library's text.
 */
export function toApiError(error: unknown, req: Request): ApiError | undefined {
  if (error instanceof ApiError) return error;
  const status = (error as { status?: unknown })?.status;
  const type = (error as { type?: unknown })?.type;
  if (type === 'entity.parse.failed') {
    const raw = rawBodies.get(req);
    rawBodies.delete(req);
    // bytes that are not UTF-8 outside any string: JSON.parse saw U+FFFD where JSON has none
    return raw !== undefined && !isUtf8(raw)
      ? errors.malformedJson([
          { field: 'body', reason: 'must be valid JSON in UTF-8: it holds bytes that are not UTF-8' },
        ])
      : errors.malformedJson();
  }
  if (type === 'entity.too.large' || status === 413)
    return errors.payloadTooLarge(
      /(\/corporates\/match|\/reconcile)$/.test(req.originalUrl.split('?')[0] ?? '')
        ? matchBodySize
        : maxBodySize,
    );
  if (type === 'encoding.unsupported')
    return errors.unsupportedContentEncoding(String(req.headers['content-encoding'] ?? ''));
  if (type === 'charset.unsupported') return errors.unsupportedMediaType();
  if (isDecompressionError(error)) return errors.malformedCompressedBody();
  if (!isValidatorError(error)) return undefined;
  const requestPath = req.originalUrl.split('?')[0] ?? req.path;
  switch (error.status) {
    case 400: {
      const undecodable = error.errors?.some((e) => /malformed uri/i.test(e.message));
      const parameter = undecodable ? undecodablePathParameter(requestPath) : undefined;
      if (parameter)
        return errors.validation([{ field: parameter, reason: 'must be valid percent-encoded UTF-8' }]);
      return errors.validation(uniqueFieldErrors(error.errors ?? [], bodySchemaOf(req)));
    }
    case 404:
      return errors.routeNotFound({ method: req.method, path: requestPath });
    case 405:
      return errors.methodNotAllowed({ method: req.method, path: requestPath });
    case 415:
      return errors.unsupportedMediaType();
    default:
      return undefined;
  }
}

/**
 * The validator reports a path segment that does not decode (`/jobs/%ff%fe/detail`) as a
 * "malformed uri" at the whole path; the caller needs the parameter's name as the contract
 * writes it: `jobId`. Found by matching the path against the description's templates.
 */
function undecodablePathParameter(requestPath: string): string | undefined {
  const base = openApiDocument().servers?.[0]?.url ?? '';
  const actual = (requestPath.startsWith(base) ? requestPath.slice(base.length) : requestPath).split('/');
  for (const template of Object.keys(openApiDocument().paths ?? {})) {
    const expected = template.split('/');
    if (expected.length !== actual.length) continue;
    const matches = expected.every((segment, i) => segment.startsWith('{') || segment === actual[i]);
    if (!matches) continue;
    for (const [i, segment] of expected.entries()) {
      if (!segment.startsWith('{')) continue;
      try {
        decodeURIComponent(actual[i] ?? '');
      } catch {
        return segment.slice(1, -1);
      }
    }
  }
  return undefined;
}

/** The JSON request-body schema of the operation a request is for, if it has one. */
function bodySchemaOf(req: Request): unknown {
  const document = openApiDocument();
  const base = document.servers?.[0]?.url ?? '';
  const requestPath = (req.originalUrl.split('?')[0] ?? req.path).replace(base, '');
  const operation = (
    document.paths?.[requestPath] as Record<string, OpenAPIV3.OperationObject> | undefined
  )?.[req.method.toLowerCase()];
  const body = operation?.requestBody as OpenAPIV3.RequestBodyObject | undefined;
  return body?.content?.['application/json']?.schema;
}

/** `is not a field of this request; did you mean "..."?` for a body field, when a name is close. */
function bodyFieldReason(pointer: string, bodySchema: unknown): string {
  const segments = pointer.split('/').slice(1);
  if (segments.shift() !== 'body' || bodySchema === undefined) return unknownFieldReason(undefined, []);
  const name = segments.pop();
  return unknownFieldReason(
    name,
    namesAt(openApiDocument() as Parameters<typeof namesAt>[0], bodySchema as object, segments),
  );
}

function uniqueFieldErrors(
  validatorErrors: NonNullable<ValidatorError['errors']>,
  bodySchema: unknown,
): FieldError[] {
  const seen = new Set<string>();
  const fieldErrors: FieldError[] = [];
  for (const error of validatorErrors) {
    const keyword = (error.errorCode ?? '').replace(/\.openapi\.validation$/, '');
    const fieldError = {
      field: toFieldPath(error.path),
      reason:
        keyword === 'additionalProperties'
          ? bodyFieldReason(error.path, bodySchema)
          : toReason(error.errorCode ?? '', error.message),
    };
    const key = `${fieldError.field}\n${fieldError.reason}`;
    if (!seen.has(key)) {
      seen.add(key);
      fieldErrors.push(fieldError);
    }
  }
  return fieldErrors;
}
