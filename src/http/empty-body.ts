/**
 * Operations that take no body (a resume, a rotation): one sent anyway is a mistake the caller
 * should hear of, so it is a 400 naming `body` rather than ignored.
 */
import type { Request } from 'express';
import { errors } from '../errors/catalogue.js';

export function refuseBody(req: Request, reason: string): void {
  if (Number(req.get('Content-Length') ?? 0) > 0 || req.get('Transfer-Encoding') !== undefined)
    throw errors.validation([{ field: 'body', reason }]);
}
