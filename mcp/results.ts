/**
 * Tool answers. A success is the API's answer as structured content, with a short summary
 * and the same answer as JSON text for assistants that read only text. A failure is a tool
 * error (`isError`) carrying the API's error code, message and field errors; nothing else of
 * a failure (no stack trace, no request internals) is shown.
 *
 *   invalid_request: The request is invalid; correct the fields listed in errors.
 *   filters.prefectureID: is not a field of this request; did you mean "prefectureId"?
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CorpsearchError, type ResponseMeta } from '../client/src/index.js';

export type Body = Record<string, unknown>;

function creditsLine(meta: ResponseMeta | undefined): string | undefined {
  return meta?.creditsRemaining === null || meta?.creditsRemaining === undefined
    ? undefined
    : `Credits remaining: ${meta.creditsRemaining}.`;
}

export function success(summary: string, body: Body, meta?: ResponseMeta): CallToolResult {
  const text = [summary, creditsLine(meta)].filter((line) => line !== undefined).join(' ');
  return {
    content: [
      { type: 'text', text },
      { type: 'text', text: JSON.stringify(body) },
    ],
    structuredContent: body,
  };
}

function errorOf(error: unknown, baseUrl: string): Body {
  if (error instanceof CorpsearchError) {
    return {
      status: error.status,
      code: error.code ?? `http_${error.status}`,
      message: error.body?.message ?? 'The API answered with an error.',
      ...(error.body?.errors ? { errors: error.body.errors } : {}),
      ...(error.meta.requestId ? { requestId: error.meta.requestId } : {}),
    };
  }
  if (error instanceof TypeError)
    return { code: 'api_unreachable', message: `The API at ${baseUrl} could not be reached (API_URL).` };
  return { code: 'mcp_failed', message: 'The MCP server could not complete the call.' };
}

export function failure(error: unknown, baseUrl: string): CallToolResult {
  const body = errorOf(error, baseUrl);
  const fields = ((body.errors ?? []) as Array<{ field: string; reason: string }>).map(
    (fieldError) => `${fieldError.field}: ${fieldError.reason}`,
  );
  const requestId = body.requestId ? [`request id: ${String(body.requestId)}`] : [];
  return {
    content: [
      {
        type: 'text',
        text: [`${String(body.code)}: ${String(body.message)}`, ...fields, ...requestId].join('\n'),
      },
    ],
    structuredContent: body,
    isError: true,
  };
}
