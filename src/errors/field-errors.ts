/**
 * Validation failures -> `{ field, reason }` in the caller's terms, whichever validator found
 * them (express-openapi-validator in src/http/validation.ts, ajv in src/search/parse-request.ts).
 *
 *   ajv:      { path: '/body/filters/prefectureId/any/2', keyword: 'type', message: 'must be integer' }
 *   response: { field: 'filters.prefectureId.any[2]', reason: 'must be an integer' }
 */
/** `/body/filters/prefectureId/any/2` -> `filters.prefectureId.any[2]`; `/query/x` -> `x`. */
export function toFieldPath(pointer: string): string {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
  const location = segments.shift();
  if (segments.length === 0) return location ?? 'body';
  if (location === 'params' || location === 'query' || location === 'headers') return segments.join('.');
  let field = '';
  for (const segment of segments) {
    if (/^\d+$/.test(segment)) field += `[${segment}]`;
    else field += field === '' ? segment : `.${segment}`;
  }
  return field;
}

const typeNames: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
  null: 'null',
};

const formatReasons: Record<string, string> = {
  date: 'must be a date YYYY-MM-DD',
  'date-time': 'must be a date-time such as 2024-04-01T09:00:00Z',
};

const patternReasons: Record<string, string> = {
  '^[0-9]{4}-[0-9]{2}-[0-9]{2}$': 'must be a date YYYY-MM-DD',
  '^[0-9]{13}$': 'must be a 13-digit corporate number',
  '^\\d{13}$': 'must be a 13-digit corporate number',
};

/** Turns one of ajv's English messages into a reason a caller can act on. */
export function toReason(errorCode: string, message: string): string {
  const keyword = errorCode.replace(/\.openapi\.validation$/, '');
  let match: RegExpMatchArray | null;
  switch (keyword) {
    case 'additionalProperties':
      return 'is not a field of this request';
    case 'required':
      return 'is required';
    case 'type': {
      const types = message.replace(/^must be /, '').split(',');
      return `must be ${types.map((type) => typeNames[type] ?? type).join(' or ')}`;
    }
    case 'enum':
      match = message.match(/allowed values: (.*)$/);
      return match ? `must be one of: ${match[1]}` : 'is not one of the allowed values';
    case 'maximum':
    case 'minimum':
    case 'exclusiveMaximum':
    case 'exclusiveMinimum':
      match = message.match(/must be (<=|>=|<|>) (.+)$/);
      if (!match) break;
      return {
        '<=': `must be at most ${match[2]}`,
        '>=': `must be at least ${match[2]}`,
        '<': `must be less than ${match[2]}`,
        '>': `must be more than ${match[2]}`,
      }[match[1] as '<=' | '>=' | '<' | '>'];
    case 'format':
      match = message.match(/format "(.+)"/);
      return (
        (match && formatReasons[match[1] as string]) ?? `must be in ${match?.[1] ?? 'the documented'} format`
      );
    case 'pattern':
      match = message.match(/pattern "(.+)"/);
      return (
        (match && patternReasons[match[1] as string]) ??
        `must match ${match?.[1] ?? 'the documented pattern'}`
      );
    case 'maxItems':
    case 'minItems':
    case 'maxLength':
    case 'minLength': {
      // ajv 8: "must NOT have more than 200 characters", "must NOT have fewer than 1 items"
      const limit = /(\d+)/.exec(message)?.[1];
      const unit = keyword.endsWith('Items') ? 'items' : 'characters';
      if (limit === undefined) return keyword.startsWith('max') ? 'is too long' : 'is too short';
      if (keyword.startsWith('max'))
        return unit === 'items'
          ? `must have at most ${limit} items`
          : `must be at most ${limit} characters long`;
      if (limit === '1') return 'must not be empty';
      return unit === 'items'
        ? `must have at least ${limit} items`
        : `must be at least ${limit} characters long`;
    }
    case 'minProperties':
      return 'must not be empty';
    case 'uniqueItems':
      return 'must not repeat a value';
  }
  return message;
}
